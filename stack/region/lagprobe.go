package region

import (
	"context"
	"fmt"
	"time"
)

// LagProbe measures, one write at a time, the time from a write's return in
// R1 to its first sight in R2: what the replication benchmarks (the suite's
// and idemcheck bench's) report next to the link's latency.
type LagProbe struct {
	Name  string
	Write func(ctx context.Context, i int) error
	Seen  func(ctx context.Context, i int) (bool, error)
	Lags  []time.Duration
}

// Once writes item i and polls until R2 sees it (30 s at most).
func (p *LagProbe) Once(ctx context.Context, i int) error {
	if err := p.Write(ctx, i); err != nil {
		return fmt.Errorf("%s: write %d: %w", p.Name, i, err)
	}
	t0 := time.Now()
	for {
		ok, err := p.Seen(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: read %d: %w", p.Name, i, err)
		}
		if ok {
			p.Lags = append(p.Lags, time.Since(t0))
			return nil
		}
		if time.Since(t0) > 30*time.Second {
			return fmt.Errorf("%s: write %d not seen in R2 after 30s", p.Name, i)
		}
		time.Sleep(500 * time.Microsecond) // the probe's read cadence: its resolution
	}
}
