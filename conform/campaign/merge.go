package campaign

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// Campaign is the merge of any number of runs. Everything but Runs is
// computed from Runs, so merge is associative: merging merged campaigns
// gives what merging all their runs at once gives.
type Campaign struct {
	Schema int `json:"campaign_schema_version"`
	// Seeds counts the runs (a seed replayed twice is two runs), FailedRuns
	// those that failed; Passed, Failed and Unjudged list their seeds.
	Seeds      int       `json:"seeds"`
	FailedRuns int       `json:"failed_runs"`
	Passed     []uint64  `json:"passed"`
	Failed     []uint64  `json:"failed"`
	Findings   []Finding `json:"findings"`
	// Unjudged are the runs that failed with no finding, with why.
	Unjudged []UnjudgedRun `json:"unjudged"`
	// Replayed are seeds whose runs disagree (the same config and seed, a
	// different exit): a campaign that is not reproducible says so.
	Replayed []uint64           `json:"disagreeing_seeds,omitempty"`
	Coverage *scenario.Coverage `json:"coverage,omitempty"`
	ExitCode int                `json:"exit_code"`
	Runs     []SeedRun          `json:"runs"`
}

// Finding is one distinct finding of the campaign: a check and a kind,
// with every seed that found it and what preceded it in each.
type Finding struct {
	Check  string `json:"check"`
	Level  string `json:"level"`
	Kind   string `json:"kind"`
	Config string `json:"config"`
	// Mechanisms are what preceded it (a chaos intent's fault, copies,
	// shape, borrowed key), each with the seeds it was seen in, most first.
	Mechanisms []Mechanism `json:"mechanisms"`
	// Seeds found it; First is the earliest detection among them.
	Seeds     []uint64      `json:"seeds"`
	First     time.Time     `json:"first_detected"`
	FirstSeed uint64        `json:"first_seed,string"`
	After     time.Duration `json:"first_after_ns"`
	Message   string        `json:"message"`
	Replay    string        `json:"replay,omitempty"`
}

// Mechanism is one way a finding came about, and the seeds it did.
type Mechanism struct {
	Mechanism string   `json:"mechanism"`
	Seeds     []uint64 `json:"seeds"`
}

// UnjudgedRun is a run that failed without a finding.
type UnjudgedRun struct {
	Config string     `json:"config"`
	Seed   uint64     `json:"seed,string"`
	Checks []Unjudged `json:"checks"`
}

// Merge combines runs: one entry per distinct run (an identical run read
// twice counts once), the findings grouped by (config, check, kind,
// mechanism), and the coverage summed.
func Merge(runs []SeedRun) *Campaign {
	c := &Campaign{Schema: Schema, Passed: []uint64{}, Failed: []uint64{}, Findings: []Finding{}, Unjudged: []UnjudgedRun{}}
	c.Runs = distinct(runs)
	byKey := map[string]*Finding{}
	for _, r := range c.Runs {
		if r.Exit == 0 {
			c.Passed = append(c.Passed, r.Seed)
		} else {
			c.Failed = append(c.Failed, r.Seed)
			c.FailedRuns++
		}
		if len(r.Findings) == 0 && r.Exit != 0 {
			c.Unjudged = append(c.Unjudged, UnjudgedRun{r.Config, r.Seed, r.Unjudged})
		}
		for _, f := range r.Findings {
			key := r.Config + "\x00" + f.Check + "\x00" + f.Kind
			g := byKey[key]
			if g == nil {
				g = &Finding{Check: f.Check, Level: f.Level, Kind: f.Kind, Config: r.Config}
				byKey[key] = g
			}
			if !slices.Contains(g.Seeds, r.Seed) {
				g.Seeds = append(g.Seeds, r.Seed)
			}
			g.addMechanism(f.Mechanism, r.Seed)
			if g.First.IsZero() || (!f.Detected.IsZero() && f.Detected.Before(g.First)) || (f.Detected.Equal(g.First) && r.Seed < g.FirstSeed) {
				g.First, g.FirstSeed, g.After, g.Message, g.Replay = f.Detected, r.Seed, f.After, f.Message, f.Replay
			}
		}
		c.Coverage = addCoverage(c.Coverage, r.Coverage)
	}
	c.Replayed = disagreeing(c.Runs)
	c.Seeds = len(c.Runs)
	for _, g := range byKey {
		slices.Sort(g.Seeds)
		for i := range g.Mechanisms {
			slices.Sort(g.Mechanisms[i].Seeds)
		}
		slices.SortFunc(g.Mechanisms, func(a, b Mechanism) int {
			return cmp.Or(cmp.Compare(len(b.Seeds), len(a.Seeds)), cmp.Compare(a.Mechanism, b.Mechanism))
		})
		c.Findings = append(c.Findings, *g)
	}
	// Most seeds first: the bug a campaign found most often leads.
	slices.SortFunc(c.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(len(b.Seeds), len(a.Seeds)), cmp.Compare(a.Config, b.Config), cmp.Compare(a.Check, b.Check),
			cmp.Compare(a.Kind, b.Kind))
	})
	slices.Sort(c.Passed)
	slices.Sort(c.Failed)
	c.Passed, c.Failed = slices.Compact(c.Passed), slices.Compact(c.Failed)
	slices.SortFunc(c.Unjudged, func(a, b UnjudgedRun) int {
		return cmp.Or(cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.Config, b.Config))
	})
	if len(c.Failed) > 0 {
		c.ExitCode = 1
	}
	return c
}

// distinct drops runs read twice (the same report reached through two
// paths, two copies or two merges: equal in all but where it was read),
// keeping the first path in order, and orders the rest.
func distinct(runs []SeedRun) []SeedRun {
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b SeedRun) int {
		return cmp.Or(cmp.Compare(a.Config, b.Config), cmp.Compare(a.Seed, b.Seed), a.Started.Compare(b.Started), cmp.Compare(a.Source, b.Source))
	})
	seen := map[string]bool{}
	var out []SeedRun
	for _, r := range sorted {
		r2 := r
		r2.Source = ""
		b, _ := json.Marshal(r2)
		if seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		out = append(out, r)
	}
	return out
}

// disagreeing lists the seeds run more than once with different exits.
func disagreeing(runs []SeedRun) []uint64 {
	type key struct {
		config string
		seed   uint64
	}
	exits := map[key]map[int]bool{}
	for _, r := range runs {
		k := key{r.Config, r.Seed}
		if exits[k] == nil {
			exits[k] = map[int]bool{}
		}
		exits[k][r.Exit] = true
	}
	var out []uint64
	for k, e := range exits {
		if len(e) > 1 {
			out = append(out, k.seed)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (g *Finding) addMechanism(m string, seed uint64) {
	for i := range g.Mechanisms {
		if g.Mechanisms[i].Mechanism == m {
			if !slices.Contains(g.Mechanisms[i].Seeds, seed) {
				g.Mechanisms[i].Seeds = append(g.Mechanisms[i].Seeds, seed)
			}
			return
		}
	}
	g.Mechanisms = append(g.Mechanisms, Mechanism{m, []uint64{seed}})
}
