package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// Console writes one line per check: ID, level, verdict, why; then a summary.
func Console(w io.Writer, r *Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tLEVEL\tVERDICT\tWHY")
	for _, res := range r.Results {
		v := strings.ToUpper(string(res.Verdict))
		if res.Verdict == scenario.Deviation && !r.Fails(res) {
			v = "deviation (not gating)"
		}
		if res.Verdict == scenario.NA && r.Fails(res) {
			v = "N/A (required)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", res.ID, res.Level, v, oneLine(res.Why, 160))
	}
	_ = tw.Flush()
	c := r.Counts()
	fmt.Fprintf(w, "\nsafety: %d violation(s); protocol: %d deviation(s); %d pass, %d n/a, %d inconclusive, %d error(s); seed %d\n",
		c[scenario.Violation], c[scenario.Deviation], c[scenario.Pass], c[scenario.NA], c[scenario.Inconclusive], c[scenario.Errored], r.Seed)
	if r.Probe != "" {
		fmt.Fprintf(w, "probe: %s\n", r.Probe)
	}
	for _, res := range r.Results {
		if res.Verdict == scenario.Inconclusive {
			fmt.Fprintf(w, "  %s INCONCLUSIVE: %s\n", res.ID, oneLine(res.Precondition, 400))
		}
	}
	for _, res := range r.Results {
		for _, f := range res.Findings {
			fmt.Fprintf(w, "  %s [%s] %s: %s (rule: %s; %s)\n", res.ID, f.Level, f.Kind, oneLine(f.Message, 300), f.Rule, CheckDoc(res.ID))
		}
	}
	first := true
	for _, res := range r.Results {
		if cmd := r.Replay(res.ID); cmd != "" && r.Fails(res) {
			if first {
				fmt.Fprintln(w, "replay one failing check:")
				first = false
			}
			fmt.Fprintf(w, "  %s\n", cmd)
		}
	}
	if len(r.Schedule) > 0 {
		if r.ScheduleFile != "" {
			fmt.Fprintf(w, "chaos schedule (seed %d, from %s; --schedule %s replays it):\n", r.Seed, r.ScheduleFile, ShellQuote(r.ScheduleFile))
		} else {
			fmt.Fprintf(w, "chaos schedule (seed %d; the same --seed replays it):\n", r.Seed)
		}
		for _, l := range r.Schedule {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if r.HTMLPath != "" {
		fmt.Fprintf(w, "HTML report: %s\n", r.HTMLPath)
	}
	if r.Elapsed > 0 {
		fmt.Fprintln(w, TimeLine(r))
	}
	// The last lines say how much the verdict proved: the safety checks
	// that ran, and the config change that would run each of the others.
	cov := r.Coverage()
	if len(cov.NotRun) > 0 {
		fmt.Fprintf(w, "safety checks NOT run against this target, by the config change that would run them (--require-all-safety or required: makes them fail):\n")
		for _, l := range cov.NotRunLines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintln(w, "verdict: "+cov.Headline)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

// Progress prints a line as each check starts and ends.
type Progress struct {
	W     io.Writer
	Total int
	n     int
}

// Start announces a check.
func (p *Progress) Start(c *scenario.Check) {
	p.n++
	if p.W != nil {
		fmt.Fprintf(p.W, "[%d/%d] %s %s ...\n", p.n, p.Total, c.ID, c.Title)
	}
}

// Done reports a check's verdict.
func (p *Progress) Done(r scenario.Result) {
	if p.W != nil {
		fmt.Fprintf(p.W, "[%d/%d] %s %s (%s)\n", p.n, p.Total, r.ID, strings.ToUpper(string(r.Verdict)), r.Elapsed.Round(1e6))
	}
}

// TimeLine says what the run's wall time was made of: the waits its design
// demands, by reason, and the rest (requests, faults, the harness itself),
// from the first check to the recount (the target's start-up is not in it).
func TimeLine(r *Report) string {
	sum := scenario.SumWaits(r.Waits, "")
	var parts []string
	for _, w := range r.Waits {
		parts = append(parts, fmt.Sprintf("%s %s", w.Reason, secs(w.Total)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("time: %s", secs(r.Elapsed))
	}
	return fmt.Sprintf("time: %s, of which waits by design %s (%s); the rest %s (requests, faults, the harness)",
		secs(r.Elapsed), secs(sum), strings.Join(parts, ", "), secs(max(r.Elapsed-sum, 0)))
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
