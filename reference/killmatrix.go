package reference

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/stack/services"
)

// Matrix is a kill matrix (issue 30 item 3): for each switch, seeds of chaos,
// each run caught or not with the switch's exact kinds.
type Matrix struct {
	// Switches to run ("" is the reference with no switch, which must find
	// nothing); empty: every switch chaos accepts and "".
	Switches []string
	// Seeds of each switch's runs, the same for every switch.
	Seeds    []uint64
	Duration time.Duration
	// Faults narrows each run's schedule (tests); empty: every fault.
	Faults []string
	// Services are running servers to share between the runs (bench).
	Services *services.Stack
	// Out keeps each run's report in Out/<switch>/<seed>; "" a temp dir.
	Out string
	// Log gets each run's output and stderr; nil discards it.
	Log io.Writer
}

// MatrixRun is one cell: one switch, one seed.
type MatrixRun struct {
	Switch string   `json:"switch"`
	Seed   uint64   `json:"seed,string"`
	Exit   int      `json:"exit"`
	Kinds  []string `json:"kinds"`
	Want   []string `json:"want"`
	// May are kinds the same bug also shows when the schedule drew what
	// makes them visible (ChaosMay, each with why); any other kind is not
	// the switch's and fails the cell.
	May []string `json:"may,omitempty"`
	// Caught: the run failed with exactly Want (no switch: passed with no
	// finding).
	Caught bool `json:"caught"`
	// DetectS is the seconds of chaos before the first violating intent
	// began; -1 without a finding.
	DetectS float64 `json:"detect_s"`
	// Coverage is the per cent of the cells the run's config allowed that
	// its chaos exercised (scenario.Coverage); -1 when it reported none.
	Coverage float64 `json:"coverage"`
	Why      string  `json:"why,omitempty"`
}

// Run runs the matrix, switch by switch, calling each (when set) after every
// run.
func (m Matrix) Run(ctx context.Context, each func(MatrixRun)) []MatrixRun {
	sws := m.Switches
	if len(sws) == 0 {
		sws, _ = ChaosSwitches()
		sws = append([]string{""}, sws...)
	}
	log := m.Log
	if log == nil {
		log = io.Discard
	}
	var out []MatrixRun
	for _, sw := range sws {
		for _, seed := range m.Seeds {
			if ctx.Err() != nil {
				return out
			}
			r := m.one(ctx, sw, seed, log)
			out = append(out, r)
			if each != nil {
				each(r)
			}
		}
	}
	return out
}

func (m Matrix) one(ctx context.Context, sw string, seed uint64, log io.Writer) MatrixRun {
	r := NewMatrixRun(sw, seed)
	dir := ""
	if m.Out != "" {
		name := sw
		if name == "" {
			name = "none"
		}
		dir = filepath.Join(m.Out, name, fmt.Sprint(seed))
		_ = os.MkdirAll(dir, 0o755)
	} else {
		d, err := os.MkdirTemp("", "idemcheck-killmatrix-")
		if err != nil {
			r.Why = err.Error()
			return r
		}
		defer os.RemoveAll(d)
		dir = d
	}
	o := conform.Options{Seed: seed, Chaos: true, Duration: m.Duration, Quiet: true, ChaosFaults: m.Faults,
		Stdout: log, Stderr: log, HTML: dir}
	if m.Out != "" {
		o.JSON = filepath.Join(dir, "report.json")
	}
	code, rep := RunStack(ctx, o, Stack{Mutants: sw, Services: m.Services})
	judgeRun(&r, code, rep)
	fmt.Fprintf(log, "kill matrix: %s\n", r)
	return r
}

// judgeRun fills a cell from its report: the kinds found, whether they are
// exactly the switch's, and the detection time.
func judgeRun(r *MatrixRun, code int, rep *report.Report) {
	r.Exit = code
	if rep == nil {
		r.Why = fmt.Sprintf("no run (exit %d)", code)
		return
	}
	kinds := map[string]bool{}
	start, first := int64(math.MaxInt64), int64(math.MaxInt64)
	var notPass []string
	for _, res := range rep.Results {
		if res.ID == "chaos" {
			if f, ok := res.Coverage.Figure(); ok {
				r.Coverage = f
			}
			for _, op := range res.History {
				if op.Call > 0 && op.Intent != "" {
					start = min(start, op.Call)
				}
			}
		}
	}
	for _, res := range rep.Results {
		if (res.Verdict == scenario.Inconclusive || res.Verdict == scenario.Errored) && len(res.Findings) == 0 {
			notPass = append(notPass, fmt.Sprintf("%s %s: %s", res.ID, res.Verdict, res.Why))
		}
		for _, f := range res.Findings {
			kinds[f.Kind] = true
			first = min(first, began(res, f.Intent, f.Violation))
		}
	}
	for k := range kinds {
		r.Kinds = append(r.Kinds, k)
	}
	sort.Strings(r.Kinds)
	if first != math.MaxInt64 && start != math.MaxInt64 {
		r.DetectS = math.Max(0, float64(first-start)/1e9)
	}
	want := slices.Clone(r.Want)
	sort.Strings(want)
	switch {
	case len(notPass) > 0:
		// An inconclusive or errored check proves nothing either way.
		r.Why = strings.Join(notPass, "; ")
	case len(want) == 0:
		r.Caught = code == conform.ExitPass && len(r.Kinds) == 0
	default:
		r.Caught = code == conform.ExitViolation && hasAll(r.Kinds, want) && within(r.Kinds, append(want, r.May...))
	}
}

// NewMatrixRun is the cell of switch sw under seed, before it runs: the
// kinds it must show and those it may.
func NewMatrixRun(sw string, seed uint64) MatrixRun {
	return MatrixRun{Switch: sw, Seed: seed, Want: ChaosKinds(sw), May: ChaosMay(sw), DetectS: -1, Coverage: -1}
}

func hasAll(kinds, want []string) bool {
	for _, k := range want {
		if !slices.Contains(kinds, k) {
			return false
		}
	}
	return true
}

func within(kinds, allowed []string) bool {
	for _, k := range kinds {
		if !slices.Contains(allowed, k) {
			return false
		}
	}
	return true
}

// began is when the violating intent's first op was called: the intent the
// finding (or the checker's violation) names, else the intent whose payment
// the violation's ops carry (a credit names only its payment), else the
// earliest op the violation names. A merchant-wide violation lists the
// merchant's ops from the start, so it is the last resort.
func began(res scenario.Result, intent string, v *checker.Violation) int64 {
	if intent == "" && v != nil {
		intent = v.Intent
	}
	if intent == "" && v != nil {
		pays := map[string]bool{}
		for _, op := range v.Ops {
			if op.PaymentID != "" {
				pays[op.PaymentID] = true
			}
		}
		for _, op := range res.History {
			if op.Intent != "" && pays[op.PaymentID] {
				intent = op.Intent
				break
			}
		}
	}
	at := int64(math.MaxInt64)
	if intent != "" {
		for _, op := range res.History {
			if op.Intent == intent && op.Call > 0 {
				at = min(at, op.Call)
			}
		}
	}
	if at == math.MaxInt64 && v != nil {
		for _, op := range v.Ops {
			if op.Call > 0 {
				at = min(at, op.Call)
			}
		}
	}
	return at
}

func (r MatrixRun) String() string {
	name := r.Switch
	if name == "" {
		name = "(no switch)"
	}
	verdict := "not caught"
	if r.Caught {
		verdict = "caught"
	}
	s := fmt.Sprintf("%s seed %d: %s, exit %d, kinds [%s], want [%s]", name, r.Seed, verdict, r.Exit,
		strings.Join(r.Kinds, " "), strings.Join(r.Want, " "))
	if len(r.May) > 0 {
		s += fmt.Sprintf(" (may also show [%s])", strings.Join(r.May, " "))
	}
	if r.DetectS >= 0 {
		s += fmt.Sprintf(", first violating intent at %.1f s", r.DetectS)
	}
	if r.Coverage >= 0 {
		s += fmt.Sprintf(", coverage %.0f%%", r.Coverage)
	}
	if r.Why != "" {
		s += " (" + r.Why + ")"
	}
	return s
}

// MatrixSummary is the matrix in three numbers: the share of switch runs
// caught with their kinds, and the median and worst detection time of the
// caught ones (no-switch runs left out of all three).
type MatrixSummary struct {
	KillRate      float64
	DetectP50     float64
	DetectMax     float64
	Caught, Runs  int
	CleanRuns     int // no-switch runs with no finding
	NoSwitchRuns  int
	CaughtDetects []float64
	// CoverageMin and CoverageMean are over every run that reported a
	// coverage (switch or not); -1 when none did.
	CoverageMin, CoverageMean float64
}

// Summarize computes the summary.
func Summarize(runs []MatrixRun) MatrixSummary {
	s := MatrixSummary{CoverageMin: -1, CoverageMean: -1}
	covered, sum := 0, 0.0
	for _, r := range runs {
		if r.Coverage >= 0 {
			if covered == 0 || r.Coverage < s.CoverageMin {
				s.CoverageMin = r.Coverage
			}
			covered++
			sum += r.Coverage
		}
	}
	if covered > 0 {
		s.CoverageMean = sum / float64(covered)
	}
	for _, r := range runs {
		if r.Switch == "" {
			s.NoSwitchRuns++
			if r.Caught {
				s.CleanRuns++
			}
			continue
		}
		s.Runs++
		if r.Caught {
			s.Caught++
			s.CaughtDetects = append(s.CaughtDetects, r.DetectS)
		}
	}
	if s.Runs > 0 {
		s.KillRate = float64(s.Caught) / float64(s.Runs)
	}
	if n := len(s.CaughtDetects); n > 0 {
		sort.Float64s(s.CaughtDetects)
		s.DetectP50 = s.CaughtDetects[(n-1)/2]
		if n%2 == 0 {
			s.DetectP50 = (s.CaughtDetects[n/2-1] + s.CaughtDetects[n/2]) / 2
		}
		s.DetectMax = s.CaughtDetects[n-1]
	}
	return s
}

// PrintMatrix writes one row per switch: caught x/N, the kinds seen, the
// detection seconds of each seed.
func PrintMatrix(w io.Writer, runs []MatrixRun) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SWITCH\tCAUGHT\tWANT\tKINDS SEEN\tDETECT S (per seed)")
	var order []string
	by := map[string][]MatrixRun{}
	for _, r := range runs {
		if _, ok := by[r.Switch]; !ok {
			order = append(order, r.Switch)
		}
		by[r.Switch] = append(by[r.Switch], r)
	}
	for _, sw := range order {
		rs := by[sw]
		caught := 0
		seen := map[string]bool{}
		var det []string
		for _, r := range rs {
			if r.Caught {
				caught++
			}
			for _, k := range r.Kinds {
				seen[k] = true
			}
			switch {
			case r.Why != "":
				det = append(det, "?")
			case r.DetectS >= 0:
				det = append(det, fmt.Sprintf("%.1f", r.DetectS))
			default:
				det = append(det, "-")
			}
		}
		var ks []string
		for k := range seen {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		name, want := sw, strings.Join(ChaosKinds(sw), ",")
		if may := ChaosMay(sw); len(may) > 0 {
			want += " (+" + strings.Join(may, ",") + ")"
		}
		if sw == "" {
			name, want = "(no switch)", "no finding"
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\n", name, caught, len(rs), want, strings.Join(ks, ","), strings.Join(det, " "))
	}
	_ = tw.Flush()
}
