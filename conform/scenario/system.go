package scenario

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/faults"
)

// System is what the fault catalogue may act on in this run.
func (e *Env) System() *faults.System {
	sys := &faults.System{Proxy: e.Proxy, PSPWebhooks: e.PSPWebhooks, Tiers: append([]faults.Tier(nil), e.Tiers...), Regions: e.Regions}
	if e.PSP != nil {
		sys.PSP = e.PSP.URL()
	}
	if e.D != nil && len(e.D.Bases()) > 0 {
		sys.Target = e.D.Bases()[0]
	}
	for _, l := range e.Links {
		sys.Links = append(sys.Links, faults.NamedLink{Name: l.Name, Link: l.Link})
	}
	if e.Hooks != nil {
		// fakepsp delivers to the service's handler, through a link of its
		// own: the webhook faults apply, and a lost reply may hit a delivery.
		sys.PSPWebhooks = true
		sys.Links = append(sys.Links, faults.NamedLink{Name: "webhook", Link: e.Hooks.Link})
	}
	if len(e.Tiers) == 0 {
		for i, p := range e.Procs {
			sys.Tiers = append(sys.Tiers, faults.Tier{Kind: "target", Name: fmt.Sprintf("instance-%d", i), Proc: p})
		}
	}
	return sys
}

// ArmPSP arms a PSP fault of the catalogue for a named check. A fault that
// cannot be armed is logged and comes back inert: it never fires, so the
// check that asserts it fired fails instead of passing.
func ArmPSP(ctx context.Context, e *Env, f faults.PSPFault, s faults.Scope) *faults.PSPInjection {
	inj, err := f.Arm(ctx, e.PSP.URL(), s)
	if err != nil {
		e.Logf("arm %s: %v", f.Name(), err)
		return faults.InertPSP(f, err)
	}
	return inj
}
