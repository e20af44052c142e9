package services

import (
	"context"
	"fmt"
	"net"
	"time"
)

// freePort asks the kernel for a free loopback port. The port is released
// before the server binds it; servers are started right after, so a clash is
// rare, and a clash fails the start loudly rather than silently.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

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
