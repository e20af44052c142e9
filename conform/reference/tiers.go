package reference

import (
	"context"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/refstack"
)

// stackProc is a reference tier as the fault catalogue's Proc: killed for
// real, restarted on its own address by the stack (its admin endpoint moves
// to a fresh port each time, hence Admin).
type stackProc struct {
	st *refstack.Stack
	t  *refstack.Tier
}

func (p stackProc) Kill() error {
	if err := p.t.Proc.Kill(); err != nil {
		return err
	}
	_ = p.t.Proc.Wait(10 * time.Second)
	return nil
}
func (p stackProc) Exited() bool  { return p.t.Proc.Exited() }
func (p stackProc) Admin() string { return p.t.Admin }
func (p stackProc) Pause() error  { return p.t.Proc.Pause() }
func (p stackProc) Resume() error { return p.t.Proc.Resume() }
func (p stackProc) Restart(ctx context.Context) error {
	return p.st.Restart(ctx, p.t)
}

// kindOf is a tier's kind from its process name: api-1 is an api, relay is
// a relay.
func kindOf(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" {
		return name[:i]
	}
	return name
}

// catalogueTiers lists every process of the stacks for the fault catalogue.
func catalogueTiers(stacks ...*refstack.Stack) []faults.Tier {
	var out []faults.Tier
	for _, st := range stacks {
		for _, t := range st.Tiers() {
			out = append(out, faults.Tier{Kind: kindOf(t.Name), Name: t.Name, Admin: t.Admin, Proc: stackProc{st: st, t: t}})
		}
	}
	return out
}
