package conform

import (
	"fmt"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func chaosCheck(o Options, rep *report.Report) *scenario.Check {
	cp := o.Plan
	cp.Refused = func(err error) { rep.ConfigErr = fmt.Errorf("idemcheck run: --schedule: %w", err) }
	return checks.ChaosCheckPlan(o.Duration, func(lines []string) { rep.Schedule = lines }, cp)
}
