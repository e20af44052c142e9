package router

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the router's tier name for tier.Command.
const TierName = "router"

func init() { tier.Register(TierName, Main) }

// ParsePairs reads "a=b,c=d" into a map; what names the flag in errors.
func ParsePairs(what, s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("router: -%s: %q is not name=value", what, kv)
		}
		m[k] = strings.TrimRight(v, "/")
	}
	return m, nil
}

// Main runs the router process.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "listen address")
	addrFile := fs.String("addr-file", "", "file to publish {http, admin} URLs to")
	regions := fs.String("regions", "", "Region=LB URL, comma separated (R1=http://...,R2=http://...)")
	home := fs.String("home", "", "caller=home Region, comma separated")
	def := fs.String("default-home", "R1", "home Region of callers -home does not list")
	mutants := fs.String("mutants", "", "comma-separated mutant switches")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rs, err := ParsePairs("regions", *regions)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return fmt.Errorf("router: -regions is required")
	}
	hs, err := ParsePairs("home", *home)
	if err != nil {
		return err
	}
	ms, err := mutant.Parse(*mutants)
	if err != nil {
		return err
	}
	rt, err := New(rs, hs, *def, ms)
	if err != nil {
		return err
	}
	pub, err := failpoint.Serve(ctx, *listen, rt)
	if err != nil {
		return err
	}
	admin, err := failpoint.ServeAdmin(ctx, nil, rt.AdminHandler())
	if err != nil {
		return err
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"http": pub, "admin": admin}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
