package router

import (
	"context"
	"fmt"
	"strings"

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
			return nil, fmt.Errorf("-%s: %q is not name=value", what, kv)
		}
		m[k] = strings.TrimRight(v, "/")
	}
	return m, nil
}

// Main runs the router process.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	f.Listen()
	ms := f.Mutants()
	regions := f.String("regions", "", "Region=LB URL, comma separated (R1=http://...,R2=http://...)")
	home := f.String("home", "", "caller=home Region, comma separated")
	def := f.String("default-home", "R1", "home Region of callers -home does not list")
	f.Require("regions")
	if err := f.Parse(args); err != nil {
		return err
	}
	rs, err := ParsePairs("regions", *regions)
	if err != nil {
		return f.Bad(err)
	}
	if len(rs) == 0 {
		return f.Bad(fmt.Errorf("-regions lists no Region"))
	}
	hs, err := ParsePairs("home", *home)
	if err != nil {
		return f.Bad(err)
	}
	rt, err := New(rs, hs, *def, *ms)
	if err != nil {
		return err
	}
	pub, err := f.Serve(ctx, rt)
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, nil, rt.AdminHandler(), map[string]string{"http": pub}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
