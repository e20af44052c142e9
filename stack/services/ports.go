package services

import (
	"context"
	"fmt"
	"time"
)

// waitFor polls ready until it succeeds, ctx ends, or limit passes; it returns
// the last error so a failed start says why.
func waitFor(ctx context.Context, what string, limit time.Duration, exited func() bool, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		if exited != nil && exited() {
			return fmt.Errorf("%s exited while starting (last probe: %v)", what, last)
		}
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		last = ready(pctx)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %v", what, limit, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
