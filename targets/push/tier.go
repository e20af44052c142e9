package push

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the provider's tier name for tier.Command.
const TierName = "push"

func init() { tier.Register(TierName, Main) }

// Main runs the provider until ctx ends. Flags: -listen (default
// 127.0.0.1:0), -addr-file (where {"push": url, "admin": url} is published).
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:0", "loopback host:port to serve on")
	addrFile := fs.String("addr-file", "", "file to publish the listening URLs to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	srv := NewServer()
	url, err := failpoint.Serve(ctx, *listen, srv.Handler())
	if err != nil {
		return fmt.Errorf("push: listen %s: %w", *listen, err)
	}
	admin, err := failpoint.ServeAdmin(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("push: admin: %w", err)
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"push": url, "admin": admin}); err != nil {
		return fmt.Errorf("push: addr file: %w", err)
	}
	<-ctx.Done()
	return nil
}
