package reference

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
)

// stackProc is a reference tier as a faults.Proc, for the fault catalogue
// and the checks alike: killed for real, restarted on its own address by the
// stack (its admin endpoint moves to a fresh port each time, hence Admin).
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
func (p stackProc) Exited() bool { return p.t.Proc.Exited() }

// ExitCode lets a crash failpoint tell its own crash from any other death.
func (p stackProc) ExitCode() (int, bool) { return p.t.Proc.ExitCode() }
func (p stackProc) Admin() string         { return p.t.Admin }
func (p stackProc) Pause() error          { return p.t.Proc.Pause() }
func (p stackProc) Resume() error         { return p.t.Proc.Resume() }
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

// activeProc is a tier of whichever Region serves: a fault drawn after the
// failover kills R2's api-1, not the dead R1's (restarting that would bring a
// second primary back).
type activeProc struct {
	rg   *regions
	name string
}

func (p activeProc) proc() (stackProc, error) {
	st := p.rg.active.Load()
	t := tierNamed(st, p.name)
	if t == nil {
		return stackProc{}, fmt.Errorf("the serving Region runs no %s", p.name)
	}
	return stackProc{st: st, t: t}, nil
}

func (p activeProc) do(f func(stackProc) error) error {
	sp, err := p.proc()
	if err != nil {
		return err
	}
	return f(sp)
}

func (p activeProc) Kill() error   { return p.do(stackProc.Kill) }
func (p activeProc) Pause() error  { return p.do(stackProc.Pause) }
func (p activeProc) Resume() error { return p.do(stackProc.Resume) }
func (p activeProc) Restart(ctx context.Context) error {
	return p.do(func(sp stackProc) error { return sp.Restart(ctx) })
}

func (p activeProc) Exited() bool {
	sp, err := p.proc()
	return err != nil || sp.Exited()
}

func (p activeProc) ExitCode() (int, bool) {
	sp, err := p.proc()
	if err != nil {
		return 0, false
	}
	return sp.ExitCode()
}

func (p activeProc) Admin() string {
	sp, err := p.proc()
	if err != nil {
		return ""
	}
	return sp.Admin()
}

// tiers lists the processes of both Regions for the fault catalogue: R1's
// tiers as whichever Region serves has them, and R2's connector and stream
// job, which run there from the start.
func (rg *regions) tiers() []faults.Tier {
	var out []faults.Tier
	for _, t := range rg.r1.Tiers() {
		out = append(out, faults.Tier{Kind: kindOf(t.Name), Name: t.Name, Proc: activeProc{rg: rg, name: t.Name}})
	}
	for _, t := range rg.r2.Tiers() {
		if t.Name == "connector" || t.Name == "streamjob" {
			out = append(out, faults.Tier{Kind: kindOf(t.Name), Name: t.Name, Admin: t.Admin, Proc: stackProc{st: rg.r2, t: t}})
		}
	}
	return out
}
