package conform

import (
	"fmt"
	"path/filepath"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func chaosCheck(o Options, rep *report.Report) *scenario.Check {
	cp := o.Plan
	cp.Refused = func(err error) { rep.ConfigErr = fmt.Errorf("idemcheck run: --schedule: %w", err) }
	cp.Window = o.ChaosWindow
	if d := reportDir(o); d != "" {
		// Only a run longer than the window writes it (chaos_rounds.go).
		cp.HistoryFile = filepath.Join(d, "chaos-history.jsonl")
	}
	return checks.ChaosCheckPlan(o.Duration, func(lines []string) { rep.Schedule = lines }, cp)
}
