package fakepsp

import (
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	// The dialects, one line each: a dialect registers itself in its init.
	_ "github.com/idemcheck/idemcheck/fakepsp/adyen"
	_ "github.com/idemcheck/idemcheck/fakepsp/checkout"
	_ "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// DefaultDialect is the wire a PSP speaks when Config.Dialect is empty.
const DefaultDialect = "stripe"

// Dialects lists the registered dialects' names, sorted.
func Dialects() []string { return core.Dialects() }

// Lookup is the registered dialect called name.
func Lookup(name string) (core.Dialect, error) { return core.Lookup(name) }

// RunSchedule is the webhook retry schedule of a run against the named
// dialect, scaled by one knob (a run's retries come 200 times sooner than
// the PSP's: Stripe's first after a minute comes after 300 ms): Stripe's
// exponential backoff from 300 ms, or the dialect's own table scaled alike
// (Adyen's 9 s becomes 45 ms, its 8 h 144 s); retries stop 2 minutes after
// the first attempt.
func RunSchedule(dialect string, timeout time.Duration) WebhookSchedule {
	s := WebhookSchedule{Base: 300 * time.Millisecond, Factor: 2, Horizon: 2 * time.Minute, Timeout: timeout}
	d, err := core.Lookup(dialect)
	if err != nil {
		return s
	}
	own, ok := d.Webhooks().(interface{ Schedule() core.Schedule })
	if !ok {
		return s
	}
	for _, st := range own.Schedule().Steps {
		s.Steps = append(s.Steps, st*300/time.Duration(time.Minute/time.Millisecond))
	}
	if len(s.Steps) > 0 {
		s.Base, s.Factor = s.Steps[0], 0
	}
	return s
}

// Speaking names the registered dialect whose API owns path ("" for none).
func Speaking(path string) string {
	for _, name := range core.Dialects() {
		d, _ := core.Lookup(name)
		if f, ok := d.(core.Formats); ok && f.OwnsPath(path) {
			return name
		}
	}
	return ""
}
