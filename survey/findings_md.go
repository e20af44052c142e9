package survey

import (
	"fmt"
	"slices"
	"strings"
)

// findings writes one section per violating cell: how often, the replay
// command, and the mechanism from findings.yaml. It returns what it could
// not vouch for.
func (t *Table) findings(b *strings.Builder) []Problem {
	var problems []Problem
	b.WriteString("## Findings\n\n")
	found := false
	for _, r := range t.Rows {
		for _, c := range Columns {
			cl := r.cell(c.ID)
			n, seed := cl.violations()
			if n == 0 {
				continue
			}
			found = true
			kinds := r.foundKinds(c.ID)
			fmt.Fprintf(b, "### <a id=\"%s\"></a>%s %s: %s (%s)\n\n", findingAnchor(r.About.Name, c.ID), r.About.Package, r.About.Version, c.ID, strings.Join(kinds, ", "))
			fmt.Fprintf(b, "%s in %d of %d run(s). Replay: `ci/survey --target %s --seed %d --only %s`\n(or, with the target set up and its storage running, `cd survey/%s && idemcheck run --config idemcheck.yaml --seed %d --only %s`).\n\n",
				c.Fault, n, len(cl.outcomes), r.About.Name, seed, c.ID, r.About.Name, seed, c.ID)
			for _, k := range kinds {
				ex := r.explanations(c.ID, k)
				if len(ex) == 0 {
					fmt.Fprintf(b, "- **%s**: not explained yet (no entry for %s %s in the target's findings.yaml).\n", k, c.ID, k)
					problems = append(problems, Problem(fmt.Sprintf("%s %s %s: a violation with no explanation in findings.yaml", r.About.Name, c.ID, k)))
				}
				for _, e := range ex {
					fmt.Fprintf(b, "- **%s**, at `%s` line %d of %s %s: %s\n", e.Kind, e.File, e.Line, r.About.Package, r.About.Version, strings.TrimSpace(e.Why))
				}
			}
			for _, d := range r.deviations(c.ID) {
				fmt.Fprintf(b, "- also seen, a protocol deviation and not a safety finding: %s\n", strings.Join(strings.Fields(d), " "))
			}
			problems = append(problems, t.judgement(b, r, c.ID)...)
			b.WriteString("\n")
		}
		// Entries for checks outside the columns (A3, the protocol
		// vectors) are listed when some run found that check's kind.
		var other []string
		for _, e := range r.Findings {
			if e.Kind == "" {
				continue
			}
			if !slices.Contains(r.foundKinds(e.Check), e.Kind) {
				problems = append(problems, Problem(fmt.Sprintf("%s: findings.yaml explains %s %s, which no run found", r.About.Name, e.Check, e.Kind)))
				continue
			}
			if !slices.Contains(ColumnIDs(), e.Check) {
				found = true
				line := fmt.Sprintf("- %s (%s), **%s**, at `%s` line %d: %s", e.Check, r.failedVerdict(e.Check), e.Kind, e.File, e.Line, strings.TrimSpace(e.Why))
				if e.Basis != "" {
					var j strings.Builder
					problems = append(problems, t.judgement(&j, r, e.Check)...)
					line += "\n" + indent(strings.TrimRight(j.String(), "\n"))
				}
				other = append(other, line)
			}
		}
		// A protocol vector that violated is in the profile cell, and a
		// safety check outside the columns (A4, S-replicas, ...) is listed
		// under "other checks": each must be explained as a column's
		// violation is, or it would be dropped from the table unseen.
		for _, id := range r.allCheckIDs() {
			if slices.Contains(ColumnIDs(), id) || r.failedVerdict(id) != "violation" {
				continue
			}
			for _, k := range r.foundKinds(id) {
				if k != "deviation" && len(r.explanations(id, k)) == 0 {
					problems = append(problems, Problem(fmt.Sprintf("%s %s %s: a violation with no explanation in findings.yaml", r.About.Name, id, k)))
				}
			}
		}
		if len(other) > 0 {
			fmt.Fprintf(b, "### %s %s: other checks that failed\n\n%s\n\n", r.About.Package, r.About.Version, strings.Join(other, "\n"))
		}
	}
	if !found {
		b.WriteString("No violation.\n\n")
	}
	return problems
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// deviations are the protocol findings of a safety check in the first run
// that has any.
func (r Row) deviations(id string) []string {
	for _, run := range r.Runs {
		if run.Summary == nil {
			continue
		}
		if res, ok := run.Summary.Result(id); ok {
			if d := res.Deviations(); len(d) > 0 {
				return d
			}
		}
	}
	return nil
}

// explanations are the findings.yaml entries of one check and kind.
func (r Row) explanations(check, kind string) []Explanation {
	var out []Explanation
	for _, e := range r.Findings {
		if e.Check == check && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// foundKinds are the kinds any run found for check id, sorted; a deviation
// counts as the kind "deviation".
func (r Row) foundKinds(id string) []string {
	var kinds []string
	for _, run := range r.Runs {
		o := outcomeOf(run, id)
		switch o.verdict {
		case "violation":
			kinds = append(kinds, o.kinds...)
		case "deviation":
			kinds = append(kinds, "deviation")
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// failedVerdict is the verdict of the first run that failed check id
// (violation or deviation), "" when none did.
func (r Row) failedVerdict(id string) string {
	for _, run := range r.Runs {
		if o := outcomeOf(run, id); o.verdict == "violation" || o.verdict == "deviation" {
			return o.verdict
		}
	}
	return ""
}

// stability says which cells differed between the runs of a target.
func (t *Table) stability(b *strings.Builder) {
	b.WriteString("## Stability\n\n")
	var flips []string
	lo, hi := 0, 0
	for i, r := range t.Rows {
		if i == 0 || len(r.Runs) < lo {
			lo = len(r.Runs)
		}
		hi = max(hi, len(r.Runs))
		for _, id := range r.checkIDs() {
			if cl := r.cell(id); !cl.stable() {
				flips = append(flips, fmt.Sprintf("- %s %s: %s", r.About.Name, id, cl.tally()))
			}
		}
	}
	runs := fmt.Sprint(hi)
	if lo != hi {
		runs = fmt.Sprintf("%d to %d", lo, hi)
	}
	switch {
	case hi < 2:
		b.WriteString("One run of each target: rerun with `--runs 5` to see which cells depend on timing.\n\n")
	case len(flips) == 0:
		fmt.Fprintf(b, "Every cell, the protocol vectors' included, was the same in all runs of its target (%s runs).\n\n", runs)
	default:
		fmt.Fprintf(b, "Cells that differed between the runs of their target (%s runs; timing-dependent):\n\n%s\n\n", runs, strings.Join(flips, "\n"))
	}
}

// footnotes collect the reasons behind n/a, inconclusive and error cells.
type footnotes struct {
	lines []string
}

func (f *footnotes) add(target, id, why string) string {
	label := strings.NewReplacer(" ", "-", "/", "-", ".", "-").Replace(target + "-" + id)
	why = strings.Join(strings.Fields(why), " ")
	if why == "" {
		why = "(the run gave no reason)"
	}
	f.lines = append(f.lines, fmt.Sprintf("[^%s]: %s %s: %s", label, target, id, why))
	return "[^" + label + "]"
}

func (f *footnotes) write(b *strings.Builder) {
	if len(f.lines) == 0 {
		return
	}
	b.WriteString("## Why a cell is not a verdict\n\n")
	for _, l := range f.lines {
		b.WriteString(l + "\n")
	}
}

// allCheckIDs are the columns' checks, then every other check of any run.
func (r Row) allCheckIDs() []string {
	ids := ColumnIDs()
	for _, run := range r.Runs {
		if run.Summary == nil {
			continue
		}
		for _, res := range run.Summary.Results {
			if !slices.Contains(ids, res.ID) {
				ids = append(ids, res.ID)
			}
		}
	}
	return ids
}

// checkIDs are the columns' checks, then the first run's protocol vectors:
// the stability section covers both.
func (r Row) checkIDs() []string {
	ids := ColumnIDs()
	if len(r.Runs) > 0 && r.Runs[0].Summary != nil {
		for _, res := range r.Runs[0].Summary.Results {
			if res.Level == "protocol" && !slices.Contains(ids, res.ID) {
				ids = append(ids, res.ID)
			}
		}
	}
	return ids
}
