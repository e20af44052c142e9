package conform

import (
	"time"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func chaosCheck(d time.Duration, rep *report.Report) *scenario.Check {
	return checks.ChaosCheck(d, func(lines []string) { rep.Schedule = lines })
}
