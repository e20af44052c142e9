package reference

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// world is one spec's stack: its own PSP, its own schema and key prefix,
// one recorder for the phones' answers and the PSP's charges.
type world struct {
	*kit.Reference
	rec     *history.Recorder
	psp     *fakepsp.PSP
	st      *refstack.Stack
	ks      *keystore.Store
	mutants mutant.Set
}

// opts is how the suite checks a history: a partition the checker cannot
// decide in 20 s fails the holds specs (HaveNoViolations needs proof).
var opts = checker.CheckOptions{Timeout: 20 * time.Second}

type worldOpts struct {
	mutants    []mutant.Switch
	toxi       bool
	noResolver bool
	// resolverRate and resolverBurst cap the resolver's PSP replays.
	resolverRate  float64
	resolverBurst int
}

func newWorld(ctx context.Context, o worldOpts) *world {
	r := srv.NewReference(ctx, kit.RefOptions{Mutants: o.mutants, Toxi: o.toxi, NoResolver: o.noResolver,
		ResolverRate: o.resolverRate, ResolverBurst: o.resolverBurst})
	return &world{Reference: r, rec: r.Rec, psp: r.PSP, st: r.Stack, ks: r.Keys, mutants: r.Mutants}
}

func (w *world) phone(name, caller string) *phone.Phone { return w.Phone(name, caller) }

// pid is the payment id the reference derives for caller's key.
func pid(caller, key string) string { return api.PaymentID(api.Scope(caller, key, true)) }

func (w *world) payments(ctx context.Context) []ledger.Payment {
	ps, err := w.st.Ledger.All(ctx)
	Expect(err).NotTo(HaveOccurred())
	return ps
}

func (w *world) payment(ctx context.Context, id string) *ledger.Payment {
	p, err := w.st.Ledger.Get(ctx, id)
	Expect(err).NotTo(HaveOccurred())
	return p
}

func (w *world) outbox(ctx context.Context) []ledger.OutboxRow {
	rows, err := w.st.Ledger.Outbox(ctx)
	Expect(err).NotTo(HaveOccurred())
	return rows
}

// record reads a key record as the reference's read path would, trusting
// presence so a spec can see an expired record still there.
func (w *world) record(ctx context.Context, caller, key string) *keystore.Record {
	s := *w.ks
	s.TrustPresence = true
	r, err := s.Get(ctx, api.Scope(caller, key, true), 0)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// states maps payment id to state.
func states(ps []ledger.Payment) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.ID] = p.State
	}
	return m
}

// pspKeys lists the PSP keys charged, in order.
func pspKeys(ops []history.Op) []string {
	var out []string
	for _, o := range ops {
		out = append(out, o.Input.PSPKey)
	}
	return out
}

// history is the phones' answers, the PSP's charges and the ledger's credits.
func (w *world) history(ctx context.Context) history.History { return w.History(ctx) }

// check is the checker's result over the history, for a spec that reads a
// violation's fields after matching it.
func (w *world) check(ctx context.Context) *checker.Result {
	return checker.Check(w.history(ctx), opts)
}

// arm arms a failpoint on every API server.
func (w *world) armAPIs(name, action string) {
	for _, t := range w.st.APIs {
		Expect(faults.FailpointAt(t.Admin, name).Arm(action)).To(Succeed())
	}
}

// fired sums a failpoint's fired count over the API servers that answer.
func (w *world) fired(name string) int64 {
	var n int64
	for _, t := range w.st.APIs {
		if t.Proc.Exited() || t.Proc.Paused() {
			continue
		}
		h, err := faults.FailpointAt(t.Admin, name).Fired()
		Expect(err).NotTo(HaveOccurred())
		n += h
	}
	return n
}

// stat sums an API counter over the API servers.
func (w *world) stat(name string) int64 {
	var n int64
	for _, t := range w.st.APIs {
		if t.Proc.Exited() || t.Proc.Paused() {
			continue
		}
		m, err := api.ReadStats(t.Admin)
		Expect(err).NotTo(HaveOccurred())
		n += m[name]
	}
	return n
}

// lbPut calls the LB's admin API (hold, route).
func (w *world) lbAdmin(method, path string) {
	Expect(adminCall(method, w.st.LB.Admin+path)).To(Succeed())
}

// eventually polls with a bound in story seconds.
func eventually(story float64) time.Duration { return storytime.D(story) + 5*time.Second }
