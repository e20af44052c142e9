package regions

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/resolver"
)

// g2 is SCENARIOS.md G2, the main line with a standby Region: R1 charges
// pay_7 at the PSP but loses the reply, so pay_7 is UNKNOWN; a second
// payment of u1 (K2, merchant m3) is charged by an API server that dies
// right after the PSP call, so it stays PENDING; that much reaches R2 over
// the 1.0 s links. Then R1 fails mid-replication: its links
// stop passing (what it writes now never reaches R2), its worker dies, its
// resolver settles pay_7 and its relay publishes the event (R1's leftover
// copy in the shared log), and every R1 tier process is SIGKILLed. R1's
// Postgres and Valkey stay up behind their cut links, unread, only so the
// run can drop the replication slot R1 holds at the end. R2 promotes, its
// resolver resumes pay_7 and its worker reads the log from the group's
// committed offset, R1's copy included.
type g2 struct {
	w          *world
	pid, pid2  string
	final      phone.Reply
	finalStale phone.Reply
}

// staleOrder is K2's order: another merchant, so m1's balance is pay_7's alone.
func staleOrder() phone.Order {
	o := phone.Story()
	o.OrderID, o.Amount, o.Merchant = "43", 2000, "m3"
	return o
}

func runG2(ctx context.Context, o worldOpts) *g2 {
	o.mode = standby
	w := newWorld(ctx, o)
	g := &g2{w: w, pid: api.PaymentID(api.Scope("u1", "K1", true)), pid2: api.PaymentID(api.Scope("u1", "K2", true))}
	// R1's resolver holds still until R2 has seen pay_7 UNKNOWN.
	Expect(faults.FailpointAt(w.r1.st.Resolver.Admin, resolver.SweepPoint).Arm("error")).To(Succeed())
	lose := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.LoseReply, Match: fakepsp.Match{Op: "charge", Times: 1}})
	p := w.phone("phone-1", "R1")
	p.Journal("K1")
	order := phone.Story()
	a1 := p.Send(ctx, "K1", order, false)
	GinkgoWriter.Printf("A1: %s (%s)\n", a1, a1.Region)
	Expect(lose.Fired()).To(Equal(int64(1)), "the PSP's reply was never lost")
	Expect(a1.Region).To(Equal("R1"))
	Expect(w.state(ctx, w.r1, g.pid)).To(Equal(ledger.Unknown))
	Expect(w.psp.Charges()).To(HaveLen(1))
	// K2: the API server that charges it dies after the PSP answered.
	for _, t := range w.r1.st.APIs {
		Expect(faults.FailpointAt(t.Admin, api.AfterPSPCall).Arm("1*crash")).To(Succeed())
	}
	p2 := w.phone("phone-2", "R1")
	p2.Journal("K2")
	a2 := p2.Send(ctx, "K2", staleOrder(), false)
	GinkgoWriter.Printf("A2: %s (%s)\n", a2, a2.Region)
	Expect(a2.Outcome).To(Equal(history.OutcomeError))
	Expect(w.psp.Charges()).To(HaveLen(2))
	Expect(w.state(ctx, w.r1, g.pid2)).To(Equal(ledger.Pending))

	// R2, 1.0 s behind, catches up with the UNKNOWN and PENDING rows and
	// pay_7's key record.
	Eventually(func() string { return w.state(ctx, w.r2, g.pid2) }).WithTimeout(eventually(3)).WithPolling(20 * time.Millisecond).
		Should(Equal(ledger.Pending))
	Eventually(func() string { return w.state(ctx, w.r2, g.pid) }).WithTimeout(eventually(3)).WithPolling(20 * time.Millisecond).
		Should(Equal(ledger.Unknown))
	Eventually(func() string {
		if r := w.record(ctx, w.r2, "K1"); r != nil {
			return r.State
		}
		return ""
	}).WithTimeout(eventually(3)).Should(Equal(keystore.Pointer))

	// R1 fails mid-replication.
	for _, l := range []*faults.Link{w.pgLink, w.vkLink} {
		_, err := l.Cut()
		Expect(err).NotTo(HaveOccurred())
	}
	worker := w.tier(w.r1, w.r1.worker)
	Expect(worker.Proc.Kill()).To(Succeed())
	Expect(faults.FailpointAt(w.r1.st.Resolver.Admin, resolver.SweepPoint).Undo()).To(Succeed())
	Eventually(func() string { return w.state(ctx, w.r1, g.pid) }).WithTimeout(eventually(5)).Should(Equal(ledger.Succeeded))
	// R1's relay has published pay_7's event (its outbox row is gone). The
	// resolver may also have settled K2 by now, if K2's deadline and margin
	// passed first: then R1 leaves a copy of K2's event too, and R2, which
	// never saw that either, settles K2 again with the same derived ids.
	Eventually(func() bool {
		rows, err := (&ledger.Ledger{Pool: w.db(ctx, w.r1)}).Outbox(ctx)
		Expect(err).NotTo(HaveOccurred())
		for _, r := range rows {
			if r.PaymentID == g.pid {
				return false
			}
		}
		end, _ := w.logCopies(ctx, w.r1)
		return end >= 1
	}).WithTimeout(eventually(5)).Should(BeTrue(), "R1's relay never published pay_7's event")
	for _, t := range w.r1.st.Tiers() {
		if !t.Proc.Exited() {
			Expect(t.Proc.Kill()).To(Succeed())
		}
	}
	left, _ := w.logCopies(ctx, w.r1)
	GinkgoWriter.Printf("R1 left %d event(s) in the log; R1 states: pay_7 %s, K2 %s\n", left,
		w.state(ctx, w.r1, g.pid), w.state(ctx, w.r1, g.pid2))
	// R2 never saw R1's last second.
	Expect(w.state(ctx, w.r2, g.pid)).To(Equal(ledger.Unknown))
	Expect(w.state(ctx, w.r2, g.pid2)).To(Equal(ledger.Pending))
	Expect(w.countCredits(ctx, w.r1)).To(Equal(0), "R1 credited before it died: its credit would be lost with it")

	// R2 promotes and takes R1's callers.
	Expect(w.follow.Promote(ctx)).To(Succeed())
	Expect(region.PromoteValkey(ctx, w.r2.svc.Valkey.Endpoint())).To(Succeed())
	w.startRegion(ctx, w.r2)
	w.admin("PUT", "/region?name=R2&url="+w.r2.st.LB.URL)
	w.admin("PUT", "/failover?from=R1&to=R2")

	// R2's resolver resumes both: the UNKNOWN one and the PENDING one
	// whose deadline and margin have passed.
	Eventually(func() string { return w.state(ctx, w.r2, g.pid) }).WithTimeout(eventually(10)).Should(Equal(ledger.Succeeded))
	Eventually(func() string { return w.state(ctx, w.r2, g.pid2) }).WithTimeout(eventually(10)).Should(Equal(ledger.Succeeded))
	var err error
	g.final, err = p.Retry(ctx, "K1", order)
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("retry after failover: %s (%s)\n", g.final, g.final.Region)
	Expect(g.final.Region).To(Equal("R2"))
	Expect(g.final.Outcome).To(Equal(history.OutcomeSucceeded))
	Expect(g.final.PaymentID).To(Equal(g.pid))
	g.finalStale, err = p2.Retry(ctx, "K2", staleOrder())
	Expect(err).NotTo(HaveOccurred())
	Expect(g.finalStale.Region).To(Equal("R2"))
	Expect(g.finalStale.Outcome).To(Equal(history.OutcomeSucceeded))
	Expect(g.finalStale.PaymentID).To(Equal(g.pid2))
	// Quiescence: R2's worker has consumed and committed the whole log:
	// R1's leftover copy, R2's copy and K2's event.
	Eventually(func() bool { end, c := w.logCopies(ctx, w.r2); return end >= 3 && c == end }).WithTimeout(eventually(10)).
		Should(BeTrue())
	return g
}

// tier finds a Region's tier by name.
func (w *world) tier(r *regionStack, name string) *refstack.Tier {
	GinkgoHelper()
	for _, t := range r.st.Tiers() {
		if t.Name == name {
			return t
		}
	}
	Fail("no tier " + name + " in " + r.name)
	return nil
}

var _ = Describe("G2: R1 fails mid-replication; R2, 1.0 s behind, takes over (seed F)", Label("G2"), func() {
	It("holds: R2 resumes the UNKNOWN and the stale PENDING payment with the derived keys: the PSP replays, the inbox drops R1's copy; one charge and one credit each, m1 12000 -> 15000", func(ctx SpecContext) {
		g := runG2(ctx, worldOpts{})
		w := g.w
		charges := map[string]string{} // PSP key -> charge id
		for _, c := range w.psp.Charges() {
			charges[c.Input.PSPKey] = c.Output.ChargeID
		}
		Expect(charges).To(HaveLen(2))
		Expect(charges).To(HaveKey(g.pid + ":charge"))
		Expect(charges).To(HaveKey(g.pid2 + ":charge"))
		// The PSP's replay: R2's resolver called it and settled both
		// payments with the charges the PSP had made for R1.
		st, err := api.ReadStats(w.r2.st.Resolver.Admin)
		Expect(err).NotTo(HaveOccurred())
		Expect(st["psp_calls"]).To(BeNumerically(">=", 2))
		// The PSP's own log: a call under each payment's key besides R1's.
		Expect(len(w.psp.CallsWithKey(g.pid + ":charge"))).To(BeNumerically(">=", 2))
		Expect(len(w.psp.CallsWithKey(g.pid2 + ":charge"))).To(BeNumerically(">=", 2))
		Expect(w.payment(ctx, w.r2, g.pid).PSPCharge).To(Equal(charges[g.pid+":charge"]))
		Expect(w.payment(ctx, w.r2, g.pid2).PSPCharge).To(Equal(charges[g.pid2+":charge"]))
		// The inbox's drop: the log holds R1's leftover copy of
		// pay_7:SUCCEEDED (and of K2's event, if R1 got to settle K2), R2's
		// copies of both, all consumed; one credit per payment.
		end, committed := w.logCopies(ctx, w.r2)
		Expect(committed).To(Equal(end))
		Expect(end).To(BeNumerically(">=", 3), "R1's leftover copy and R2's two events")
		events := map[string]int{}
		for _, c := range w.credits(ctx, w.r2) {
			events[c.Input.EventID]++
		}
		Expect(events).To(Equal(map[string]int{ledger.EventID(g.pid): 1, ledger.EventID(g.pid2): 1}))
		Expect(w.balance(ctx, w.r2, true)).To(Equal(int64(15000)))
		Expect(w.check(ctx, w.r2)).To(matchers.HaveNoViolations())
	}, SpecTimeout(3*time.Minute))

	It("caught (region-attempt-key, R2): R2 replays with pay_7:R2:1, which the PSP has never seen: a second charge", func(ctx SpecContext) {
		g := runG2(ctx, worldOpts{r2: []mutant.Switch{mutant.RegionAttemptKey}})
		w := g.w
		keys := []string{}
		for _, c := range w.psp.Charges() {
			keys = append(keys, c.Input.PSPKey)
		}
		Expect(keys).To(ContainElements(g.pid+":charge", g.pid+":R2:1"))
		// Only double-charge: R2's credits stay one per event id (the
		// charges differ, the event ids do not). How many depends on whether
		// R2 resumed K2 with its per-Region key too, so the kinds are exact
		// and the count is not.
		Expect(w.check(ctx, w.r2)).To(kit.HaveExactKinds(checker.KindDoubleCharge))
	}, SpecTimeout(3*time.Minute))

	It("caught (random-event-id, R1): R1's leftover copy matches nothing in the inbox: credited again, m1 = 18000", func(ctx SpecContext) {
		g := runG2(ctx, worldOpts{r1: []mutant.Switch{mutant.RandomEventID}})
		w := g.w
		Expect(w.psp.Charges()).To(HaveLen(2))
		perPayment := func() map[string]int {
			m := map[string]int{}
			for _, c := range w.credits(ctx, w.r2) {
				m[c.PaymentID]++
			}
			return m
		}
		Eventually(perPayment).WithTimeout(eventually(5)).Should(HaveKeyWithValue(g.pid, 2))
		Expect(w.balance(ctx, w.r2, true)).To(Equal(int64(18000)))
		// Only double-credit: one charge per payment. K2's event is
		// credited twice too when R1 settled K2 before it died (a race the
		// spec leaves open), so the kinds are exact and the count is not.
		Expect(w.check(ctx, w.r2)).To(kit.HaveExactKinds(checker.KindDoubleCredit))
	}, SpecTimeout(3*time.Minute))
})
