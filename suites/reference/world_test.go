package reference

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/phone"
	"github.com/idemcheck/idemcheck/targets/refstack"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// world is one spec's stack: its own PSP, its own schema and key prefix,
// one recorder for the phones' answers and the PSP's charges.
type world struct {
	rec     *checker.Recorder
	psp     *fakepsp.PSP
	st      *refstack.Stack
	ks      *keystore.Store
	mutants mutant.Set
}

var worlds atomic.Int64

type worldOpts struct {
	mutants    []mutant.Switch
	toxi       bool
	noResolver bool
	// resolverRate and resolverBurst cap the resolver's PSP replays.
	resolverRate  float64
	resolverBurst int
}

func newWorld(ctx context.Context, o worldOpts) *world {
	w := &world{rec: checker.NewRecorder(), mutants: mutant.Set{}}
	for _, m := range o.mutants {
		w.mutants[m] = true
	}
	var err error
	w.psp, err = fakepsp.Start(fakepsp.Config{KeyWindow: 24 * time.Hour, Recorder: w.rec,
		RateLimits: fakepsp.RateLimits{Disabled: true}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.psp.Close)
	cfg := refstack.Config{
		PostgresDSN: suite.svc.Postgres.Endpoint(), ValkeyAddr: suite.svc.Valkey.Endpoint(),
		PSPURL: w.psp.URL(), PSPKey: w.psp.SecretKey(), WebhookSecret: w.psp.WebhookSecret(),
		Mutants: w.mutants, NoResolver: o.noResolver, ResolverRate: o.resolverRate, ResolverBurst: o.resolverBurst,
		Name: fmt.Sprintf("w%d_%d", GinkgoParallelProcess(), worlds.Add(1)),
	}
	if o.toxi {
		cfg.Toxi = suite.toxi
	}
	w.st, err = refstack.Start(ctx, cfg)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		if CurrentSpecReport().Failed() {
			fmt.Fprintf(GinkgoWriter, "stack logs in %s (set IDEMCHECK_KEEP_LOGS=1 to keep them), tails:\n", w.st.LogDir())
			for _, t := range w.st.Tiers() {
				fmt.Fprintf(GinkgoWriter, "--- %s\n%s\n", t.Name, tailFile(t.Proc.LogPath()))
			}
		}
		w.st.Stop()
	})
	w.ks = &keystore.Store{C: suite.valkey, Prefix: w.st.Prefix}
	return w
}

func (w *world) phone(name, caller string) *phone.Phone {
	return &phone.Phone{Name: name, Caller: caller, Base: w.st.URL, Rec: w.rec, TrustsError: w.mutants.On(mutant.ClientTrustsError)}
}

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
func pspKeys(ops []checker.Op) []string {
	var out []string
	for _, o := range ops {
		out = append(out, o.Input.PSPKey)
	}
	return out
}

// history is the phones' answers and the PSP's charges, plus one credit per
// outbox row (the ledger's ground truth of what will be credited), so the
// checker's quiescence rule sees a charged payment that never got its row.
func (w *world) history(ctx context.Context) checker.History {
	Expect(w.rec.Errors()).To(BeEmpty(), "recorder refused operations")
	Expect(w.psp.RecorderErr()).NotTo(HaveOccurred())
	intents := map[string]string{}
	for _, p := range w.payments(ctx) {
		intents[p.ID] = api.Scope(p.Caller, p.Key, true)
	}
	for _, r := range w.outbox(ctx) {
		now := checker.Now()
		Expect(w.rec.Record(checker.Op{Process: "ledger", Op: checker.OpCredit, Call: now, Return: checker.Int64(now),
			PaymentID: r.PaymentID, Intent: intents[r.PaymentID], Input: checker.Input{Merchant: r.Merchant, Amount: checker.Int64(r.Amount), EventID: r.EventID},
			Output: &checker.Output{}})).To(Succeed())
	}
	return w.rec.History()
}

func (w *world) check(ctx context.Context) *checker.Result {
	h := w.history(ctx)
	res := checker.Check(h, checker.CheckOptions{Timeout: 20 * time.Second})
	for _, v := range res.Violations {
		fmt.Fprintf(GinkgoWriter, "violation %s %s: %s\n", v.Kind, v.Intent, v.Message)
	}
	Expect(res.Unknown).To(BeEmpty(), "checker could not decide")
	return res
}

func kinds(res *checker.Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, v.Kind)
	}
	return out
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

func tailFile(path string) string {
	s := readFile(path)
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
