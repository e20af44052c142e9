package faults

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
)

// Family groups the faults by what they act on.
type Family string

// The six families, one file of this package each.
const (
	FamilyNetwork   Family = "network"   // Toxiproxy links (net_faults.go)
	FamilyProcess   Family = "process"   // tier processes: kill, pause, restart (proc_faults.go)
	FamilyPSP       Family = "psp"       // fakepsp's fault kinds, over its control API (psp_faults.go)
	FamilyFailpoint Family = "failpoint" // points in tier code, over the tiers' admin API (failpoint_faults.go)
	FamilyRegion    Family = "region"    // a standby Region taking over (region_faults.go)
	// FamilyWindow strikes when the intent's request reaches a point seen
	// from outside the tier under test, and keeps the settlers away while
	// the retries come (window_faults.go).
	FamilyWindow Family = "window"
)

// Fault is one fault the harness can inject, after etcd's robustness
// failpoints (tests/robustness/failpoint): a name, whether it applies to the
// system at hand (and why not), and an injection that reports whether it
// fired and can be undone.
type Fault interface {
	Name() string
	Family() Family
	// Applies reports whether sys offers what the fault acts on; when not,
	// why names what is missing.
	Applies(sys *System) (ok bool, why string)
	// Inject puts the fault on sys for one intent (s). The fault is in
	// effect when Inject returns; Undo ends it.
	Inject(ctx context.Context, sys *System, s Scope) (Injection, error)
}

// Injection is one fault in effect.
type Injection interface {
	// Fired is how many times the fault took effect; 0 means it proved nothing.
	Fired() int64
	// Undo ends the fault: removes the toxic, disarms the point, brings a
	// killed tier back. It is called once.
	Undo() error
}

// Router is an Injection that carries its intent's traffic on its own
// address (a link in front of the target): the intent is sent to Via.
type Router interface {
	Via() string
}

// Scope is the intent a fault is put on.
type Scope struct {
	// N is the intent's number; it picks among several links or tiers, so
	// the same schedule hits the same one.
	N int
	// Amount, PSPKey and Op narrow a PSP fault to the intent's requests.
	Amount int64
	PSPKey string
	Op     string
	// Times > 0 fires a PSP fault on the next Times matches only; 0 on all.
	Times int
}

// System is what the harness controls in a run. Empty fields mean "not
// controlled", and the faults that need them do not apply.
type System struct {
	// PSP is fakepsp's base URL; its control API is under /_psp/.
	PSP string
	// PSPWebhooks says fakepsp delivers its events to the target.
	PSPWebhooks bool
	// Unsettled says the harness accepts intents that never converge (a
	// PSP that answers a saved 500 forever); chaos does not.
	Unsettled bool
	// Target is the base URL clients send to; client faults front its host.
	Target string
	// Proxy returns the embedded Toxiproxy, starting it on first use.
	Proxy func() (*Toxiproxy, error)
	// Links are the target's own links to its dependencies, by name.
	Links []NamedLink
	// Tiers are the processes the harness may kill, pause or arm.
	Tiers []Tier
	// Regions is a second Region standing by; nil when there is one.
	Regions *Regions
}

// Regions is what the harness controls of a standby Region: the links its
// replication crosses, and the failover that makes it the primary.
type Regions struct {
	// Replication are the links between the Regions' servers.
	Replication []NamedLink
	// Failover fails the primary Region over to the standby around the
	// intent s: it is in progress when it returns, and its injection's Undo
	// returns once the standby serves. It can happen once.
	Failover func(ctx context.Context, s Scope) (Injection, error)
}

// Once is a fault that changes the system for good (a Region failover): a
// schedule draws it at most once, and after it none of the faults it ends.
type Once interface {
	Ends() []string
}

// NamedLink is a Toxiproxy link with the dependency it reaches.
type NamedLink struct {
	Name string
	Link *Link
}

// Tier is one process of the system.
type Tier struct {
	Kind  string // api, lb, resolver, webhook, relay, worker, connector, streamjob, target
	Name  string // the process's own name (api-1)
	Admin string // its failpoint admin URL; "" when it has none
	Proc  Proc
	// Settle, when set, returns once what the tier had in flight when it
	// died has been handled again by its restarted process (the worker's
	// redelivered batch pushed and committed). A fault that restarted the
	// tier waits for it before it ends: the next fault of the run would
	// otherwise strike that redelivery too, and two deaths in one batch's
	// push-to-SENT window alert the buyer three times, which no worker
	// can avoid and SCENARIOS E1's bound (one repeat alert) does not allow.
	Settle func(ctx context.Context) error
}

// settled waits for t's Settle after the harness restarted it.
func (t Tier) settled(ctx context.Context) error {
	if t.Settle == nil {
		return nil
	}
	if err := t.Settle(ctx); err != nil {
		return fmt.Errorf("%s restarted but did not settle: %w", t.Name, err)
	}
	return nil
}

// Admined is a Proc whose admin URL moves when it restarts (a fresh port
// each incarnation); it overrides Tier.Admin.
type Admined interface {
	Admin() string
}

// AdminURL is the tier's failpoint admin URL now.
func (t Tier) AdminURL() string {
	if a, ok := t.Proc.(Admined); ok {
		return a.Admin()
	}
	return t.Admin
}

// ErrSystemBroken wraps an injection's error when the fault left the system
// broken by the harness's own failure (a failover that killed the primary
// and could not bring the standby up): a run that meets it is errored, and
// nothing it saw after that is the service's violation.
var ErrSystemBroken = errors.New("the fault left the system broken")

// restartFailed is the error of a tier the harness took down and could not
// bring back: it stays down by the harness's doing (a binary gone, a port
// taken), so whatever the run sees after it is not the service's violation.
func restartFailed(what string, err error) error {
	return fmt.Errorf("%w: restart %s: %w", ErrSystemBroken, what, err)
}

// Proc is a process a fault or a check may crash, freeze and bring back:
// the one process interface of the harness. The reference's tiers, the
// user's started instances and their webhook and consumer processes all
// implement it.
type Proc interface {
	Kill() error
	// Pause freezes the process (SIGSTOP of its group); Resume thaws it.
	Pause() error
	Resume() error
	// Restart brings a dead process back and returns once it serves.
	Restart(ctx context.Context) error
	Exited() bool
}

// CanPause reports whether p can be frozen: a Proc may say it cannot (a
// service controlled by the user's commands, with no pause command), and
// the freeze faults then do not apply to it.
func CanPause(p Proc) bool {
	c, ok := p.(interface{ CanPause() bool })
	return !ok || c.CanPause()
}

// TiersOf lists the system's tiers of kind.
func (sys *System) TiersOf(kind string) []Tier {
	var out []Tier
	for _, t := range sys.Tiers {
		if t.Kind == kind && t.Proc != nil {
			out = append(out, t)
		}
	}
	return out
}

// All is the catalogue: every fault the harness can inject, family by family.
// A new fault is one value in its family's list; chaos draws from All.
func All() []Fault {
	var out []Fault
	for _, fam := range [][]Fault{networkFaults, processFaults, pspFaults, failpointFaults, regionFaults, windowFaults} {
		out = append(out, fam...)
	}
	return out
}

// Lookup finds a fault of the catalogue by name.
func Lookup(name string) Fault {
	for _, f := range All() {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// Applicable lists the faults of the catalogue that apply to sys, and why
// each other one does not.
func Applicable(sys *System) (ok []Fault, not map[string]string) {
	not = map[string]string{}
	for _, f := range All() {
		if yes, why := f.Applies(sys); yes {
			ok = append(ok, f)
		} else {
			not[f.Name()] = why
		}
	}
	return ok, not
}

// Names lists faults' names, sorted.
func Names(fs []Fault) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	sort.Strings(out)
	return out
}

// injection is an Injection made of two functions.
type injection struct {
	fired func() int64
	undo  func() error
	via   string
}

func (i *injection) Fired() int64 { return i.fired() }
func (i *injection) Undo() error  { return i.undo() }

// routed is an injection with its own address for the intent's traffic.
type routed struct{ *injection }

func (r routed) Via() string { return r.via }

func targetHost(sys *System) (string, error) {
	u, err := url.Parse(sys.Target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", fmt.Errorf("target %q is not an http:// URL", sys.Target)
	}
	return u.Host, nil
}

// pick chooses among n things for intent s, the same one for the same intent.
func pick(s Scope, n int) int {
	if n <= 1 {
		return 0
	}
	i := s.N % n
	if i < 0 {
		i = -i
	}
	return i
}
