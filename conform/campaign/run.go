package campaign

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// SeedRun is what a campaign keeps of one run: enough to merge, nothing
// per request. Merging works on these alone, so merging merged files gives
// what merging every run's report at once gives.
type SeedRun struct {
	Config  string   `json:"config"`
	Targets []string `json:"targets,omitempty"`
	Seed    uint64   `json:"seed,string"`
	// Exit is the run's exit code: 0 pass, 1 failed.
	Exit    int           `json:"exit_code"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Findings are the run's failing findings, one per (check, kind, mechanism).
	Findings []SeedFinding `json:"findings,omitempty"`
	// Unjudged are the checks that failed the run without a finding:
	// inconclusive, error, or a required check that did not apply.
	Unjudged []Unjudged         `json:"unjudged,omitempty"`
	Coverage *scenario.Coverage `json:"coverage,omitempty"`
	// Source is the report file it was read from.
	Source string `json:"source"`
}

// SeedFinding is one distinct finding of one run.
type SeedFinding struct {
	Check string `json:"check"`
	Level string `json:"level"`
	Kind  string `json:"kind"`
	// Mechanism is what preceded it where the run can tell: the fault and
	// request shape of a chaos intent, else the check itself.
	Mechanism string `json:"mechanism"`
	Message   string `json:"message"`
	// Detected is when its earliest request was sent; After is how long
	// into the run that was.
	Detected time.Time     `json:"detected"`
	After    time.Duration `json:"after_ns"`
	Replay   string        `json:"replay,omitempty"`
}

// Unjudged is a check that failed a run without a finding, and why.
type Unjudged struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Why     string `json:"why"`
}

// fromReport keeps what a campaign needs of one run's report.
func fromReport(r *report.Report, replay map[string]string, source string) SeedRun {
	sr := SeedRun{Config: r.Config, Targets: r.Targets, Seed: r.Seed, Exit: r.ExitCode,
		Started: r.Started, Elapsed: r.Elapsed, Source: source}
	sched := scheduleByIntent(r.Schedule)
	seen := map[string]bool{}
	for _, res := range r.Results {
		if res.Coverage != nil {
			sr.Coverage = res.Coverage
		}
		if !r.Fails(res) {
			continue
		}
		if len(res.Findings) == 0 {
			why := res.Why
			if res.Precondition != "" {
				why = res.Precondition
			}
			sr.Unjudged = append(sr.Unjudged, Unjudged{res.ID, string(res.Verdict), why})
			continue
		}
		steps := map[int]attemptAt{}
		for _, a := range res.Attempts {
			steps[a.Seq] = attemptAt{a.Step, a.Intent, a.Call}
		}
		for _, f := range res.Findings {
			mech, at := mechanism(res.ID, f, steps, sched)
			key := res.ID + "\x00" + f.Kind + "\x00" + mech
			if seen[key] {
				continue
			}
			seen[key] = true
			sf := SeedFinding{Check: res.ID, Level: string(f.Level), Kind: f.Kind, Mechanism: mech,
				Message: f.Message, Replay: replay[res.ID]}
			if at > 0 {
				sf.Detected = time.Unix(0, at).UTC()
				if !r.Started.IsZero() {
					sf.After = sf.Detected.Sub(r.Started)
				}
			}
			sr.Findings = append(sr.Findings, sf)
		}
	}
	return sr
}

type attemptAt struct {
	step   string
	intent string
	call   int64
}

// chaosStep is how a chaos request names its intent ("intent 12 copy 1
// (psp-reply-lost)", "intent 12 retry").
var chaosStep = regexp.MustCompile(`(?:^|: )intent (\d+)\b`)

// schedLine is a line of the chaos schedule (checks.Planned.String).
var schedLine = regexp.MustCompile(`^intent (\d+) caller \d+ fault (\S+)\s.*?copies (\d+)`)

// scheduleByIntent maps a chaos intent's number to what the schedule gave
// it: its fault, its copies, and its shape and borrowed key when it had them.
func scheduleByIntent(lines []string) map[int]string {
	out := map[int]string{}
	for _, l := range lines {
		m := schedLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		desc := "fault " + m[2]
		if m[3] != "1" {
			desc += ", " + m[3] + " copies"
		}
		if _, shape, ok := strings.Cut(l, " shape "); ok {
			desc += ", shape " + strings.Fields(shape)[0]
		}
		if strings.Contains(l, " key of intent ") {
			desc += ", a borrowed key"
		}
		out[n] = desc
	}
	return out
}

// mechanism names what preceded a finding, and when its earliest request
// was sent: for chaos, the schedule's fault and shape of the intent of the
// finding's first request (of its own intent's, when it names one); for a
// named check, the check (its story is the mechanism).
func mechanism(check string, f scenario.Finding, steps map[int]attemptAt, sched map[int]string) (string, int64) {
	seqs := ownSeqs(f, steps)
	sort.Ints(seqs)
	var at int64
	mech := ""
	for _, s := range seqs {
		a, ok := steps[s]
		if !ok {
			continue
		}
		if at == 0 || (a.call > 0 && a.call < at) {
			at = a.call
		}
		if mech != "" {
			continue
		}
		if m := chaosStep.FindStringSubmatch(a.step); m != nil {
			n, _ := strconv.Atoi(m[1])
			if d, ok := sched[n]; ok {
				mech = d
			}
		}
	}
	if mech == "" {
		mech = check
		if check == "chaos" {
			mech = "chaos (no scheduled intent among its requests)"
		}
	}
	return mech, at
}

// ownSeqs are the finding's requests of its own intent, when it names one
// and any of them is: a finding of the whole history carries every request
// of the run, and the run's first request (another intent's) named its
// mechanism and its time (seed 36: a notification-stacked on intent 1's
// payment was put down to intent 2's psp-slow-after-charge).
func ownSeqs(f scenario.Finding, steps map[int]attemptAt) []int {
	var own []int
	if f.Intent != "" {
		for _, s := range f.Seqs {
			if a, ok := steps[s]; ok && a.intent == f.Intent {
				own = append(own, s)
			}
		}
	}
	if len(own) == 0 {
		return append([]int(nil), f.Seqs...)
	}
	return own
}
