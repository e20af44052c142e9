package push

import (
	"context"

	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the provider's tier name for tier.Command.
const TierName = "push"

func init() { tier.Register(TierName, Main) }

// Main runs the provider until ctx ends; it publishes {"push": url,
// "admin": url} to -addr-file.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	f.Listen()
	if err := f.Parse(args); err != nil {
		return err
	}
	srv := NewServer()
	url, err := f.Serve(ctx, srv.Handler())
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, nil, nil, map[string]string{"push": url}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
