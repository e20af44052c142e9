package survey

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options of one survey.
type Options struct {
	Root    string   // the idemcheck checkout
	Targets []string // names; empty: every target
	Runs    int      // runs of each target, seeds Seed, Seed+1, ...
	Seed    uint64
	Only    []string // check IDs: a replay, not a table
	Home    string   // SURVEY_HOME root (default ~/.cache/idemcheck/survey)
	Reports string   // where run reports go (default: a temp dir, removed)
	From    string   // a Reports folder of an earlier survey: the table of its runs, nothing run
	Log     io.Writer
	Timeout time.Duration
}

// Generate sets up and runs the targets and returns the table of their runs.
func Generate(ctx context.Context, o Options) (*Table, error) {
	start := time.Now()
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	targets, err := o.selected()
	if err != nil {
		return nil, err
	}
	work := o.Reports
	if work == "" {
		if work, err = os.MkdirTemp("", "idemcheck-survey-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	bin, version, err := BuildIdemcheck(ctx, o.Root, work)
	if err != nil {
		return nil, err
	}
	home := o.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		home = filepath.Join(h, ".cache", "idemcheck", "survey")
	}
	r := &Runner{Bin: bin, Home: home, Work: work, Log: log, Timeout: o.Timeout}
	defer r.Close()
	kinds, err := KindDocs(filepath.Join(o.Root, "docs"))
	if err != nil {
		return nil, err
	}
	t := &Table{Date: time.Now().UTC().Format("2006-01-02"), Version: version, KindDocs: kinds, Root: o.Root}
	for _, a := range targets {
		row := Row{About: a}
		if row.Findings, err = LoadFindings(a.Dir); err != nil {
			return nil, err
		}
		if !a.Reference {
			t0 := time.Now()
			if err := r.Setup(ctx, a); err != nil {
				fmt.Fprintf(log, "survey: %s: %v\n", a.Name, err)
				row.SetupErr = err.Error()
				t.Rows = append(t.Rows, row)
				continue
			}
			fmt.Fprintf(log, "survey: %s: set up (%s)\n", a.Name, time.Since(t0).Round(time.Second))
		}
		for i := range max(o.Runs, 1) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			run := r.RunOnce(ctx, a, o.Seed+uint64(i), o.Only)
			fmt.Fprintf(log, "survey: %s seed %d: %s (%s)\n", a.Name, run.Seed, verdictLine(run, o.Only), run.Wall.Round(time.Second))
			row.Runs = append(row.Runs, run)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Wall = time.Since(start)
	return t, nil
}

// selected are the targets o names (every target when it names none).
func (o Options) selected() ([]About, error) {
	all, err := Targets(filepath.Join(o.Root, "survey"))
	if err != nil {
		return nil, err
	}
	return pick(all, o.Targets)
}

func pick(all []About, names []string) ([]About, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []About
	for _, n := range names {
		i := slices.IndexFunc(all, func(a About) bool { return a.Name == n })
		if i < 0 {
			var have []string
			for _, a := range all {
				have = append(have, a.Name)
			}
			return nil, fmt.Errorf("no survey target %q (have: %s)", n, strings.Join(have, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// verdictLine is a run's verdicts on the columns (or on only).
func verdictLine(r Run, only []string) string {
	if r.Summary == nil {
		return "no report: " + firstLine(r.Err)
	}
	ids := only
	if len(ids) == 0 {
		ids = ColumnIDs()
	}
	var parts []string
	for _, id := range ids {
		o := outcomeOf(r, id)
		p := id + " " + o.verdict
		if len(o.kinds) > 0 {
			p += " " + strings.Join(o.kinds, ",")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
