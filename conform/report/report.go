// Package report renders an idemcheck run: a console table, JSON, JUnit and
// an HTML page. Every format carries both levels, safety and protocol.
package report

import (
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// Report is one run.
type Report struct {
	Config  string   `json:"config"`
	Targets []string `json:"targets"`
	Profile string   `json:"profile"`
	// Seed is written as a JSON string: it can exceed 2^53, which jq and
	// JavaScript read as a float and round, replaying the wrong seed.
	Seed   uint64 `json:"seed,string"`
	Strict bool   `json:"strict"`
	// RequireAllSafety: a safety check that was n/a fails the run.
	RequireAllSafety bool `json:"require_all_safety,omitempty"`
	// PSP says how the fakepsp idemcheck started behaved where Stripe's
	// documentation leaves the PSP free (search lag), so a reader knows
	// how unkind the run's PSP was.
	PSP []string `json:"psp_behaviour,omitempty"`
	// Probe is what the first probe found about the keys, when it found a problem.
	Probe string `json:"probe,omitempty"`
	// TargetLogs are the started target's stdout and stderr files.
	TargetLogs []string      `json:"target_logs,omitempty"`
	Started    time.Time     `json:"started"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Waits are the parts of Elapsed the run waited on purpose, by reason.
	Waits    []scenario.Wait   `json:"waits,omitempty"`
	Results  []scenario.Result `json:"results"`
	Schedule []string          `json:"chaos_schedule,omitempty"`
	// ScheduleFile is the schedule file the chaos run replayed (run
	// --schedule), which the seed alone does not.
	ScheduleFile string `json:"chaos_schedule_file,omitempty"`
	// Resources is where run --resources wrote its samples and the growth
	// it measured after the warm-up.
	Resources []string `json:"resources,omitempty"`
	ExitCode  int      `json:"exit_code"`
	// HTMLPath is set once the HTML report was written.
	HTMLPath string `json:"html,omitempty"`
	// Rerun is the command that reruns this run, without --seed and --only
	// (default: idemcheck run --config FILE); Replay adds them.
	Rerun string `json:"-"`
	// ConfigErr is a config error found while running (a payment_id path
	// that matches no success answer): the run exits 2 with no report.
	ConfigErr error `json:"-"`
}

// Fails reports whether a result fails the run: any safety violation, an
// error (a check idemcheck could not judge is not a pass), and a protocol
// deviation only when strict or required.
func (r *Report) Fails(res scenario.Result) bool {
	switch res.Verdict {
	case scenario.Violation, scenario.Errored, scenario.Inconclusive:
		return true
	case scenario.Deviation:
		return r.Strict || res.Required
	case scenario.NA:
		// A required check must apply; with --require-all-safety every
		// safety check must, but one the consumer's broker cannot run (a
		// visibility check on Kafka) is no gap the config could close.
		return res.Required || (r.RequireAllSafety && res.Level == scenario.Safety && !res.BrokerNA)
	}
	return false
}

// SafetyNA lists the safety checks that did not apply, with why.
func (r *Report) SafetyNA() []string {
	var out []string
	for _, res := range r.Results {
		if res.Level == scenario.Safety && res.Verdict == scenario.NA {
			out = append(out, res.ID+" ("+res.Why+")")
		}
	}
	return out
}

// Counts tallies verdicts.
func (r *Report) Counts() map[scenario.Verdict]int {
	m := map[scenario.Verdict]int{}
	for _, res := range r.Results {
		m[res.Verdict]++
	}
	return m
}

// Exit computes the exit code: 1 if anything fails the run, else 0.
func (r *Report) Exit() int {
	for _, res := range r.Results {
		if r.Fails(res) {
			return 1
		}
	}
	return 0
}
