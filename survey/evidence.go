package survey

import "fmt"

// evidenceProblems are the cells whose kinds say more than their run's
// evidence shows: a double-charge is named only from the PSP's own log (two
// charges or more for one intent), a double-booking only where the
// service's ledger has more rows than the PSP has charges. A report recorded
// before the checker drew that line (a ledger count named double-charge)
// is caught here rather than published.
func evidenceProblems(r Row) []Problem {
	var out []Problem
	for _, run := range r.Runs {
		if run.Summary == nil {
			continue
		}
		for _, res := range run.Summary.Results {
			for _, f := range res.Findings {
				switch f.Kind {
				case "double-charge":
					if n := f.ChargeCount(); n < 2 {
						out = append(out, Problem(fmt.Sprintf("%s seed %d %s: double-charge whose evidence holds %d PSP charge(s): %s",
							r.About.Name, run.Seed, res.ID, n, firstLine(f.Message))))
					}
				case "double-booking":
					if l, p, ok := f.counts(); ok && l <= p {
						out = append(out, Problem(fmt.Sprintf("%s seed %d %s: double-booking with %d ledger row(s) and %d PSP charge(s)",
							r.About.Name, run.Seed, res.ID, l, p)))
					}
				}
			}
		}
	}
	return out
}
