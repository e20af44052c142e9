package checks

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// waitFired waits up to d for inj to fire, reading its count as a link
// counts what it did (no event to wait on): every 20 ms.
func waitFired(ctx context.Context, inj faults.Injection, d time.Duration) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.After(d)
	for inj.Fired() == 0 {
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-tick.C:
		}
	}
}
