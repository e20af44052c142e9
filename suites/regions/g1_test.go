package regions

import (
	"context"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// g1 is SCENARIOS.md G1: both Regions accept writes, the claim table is
// replicated 1.0 s behind by last writer wins. A1 claims K1 in R1 at 0.02 and
// its PSP answer is held, so A1 is still in progress when the phone's resend
// A1' leaves at 0.45, before R1's claim can reach R2 (0.02 + 1.0). The hold
// is released once A1' has its answer.
type g1 struct {
	w       *world
	a1, a1p phone.Reply
	pid     string
}

func runG1(ctx context.Context, routerMutants ...mutant.Switch) *g1 {
	w := newWorld(ctx, worldOpts{mode: activeActive, router: routerMutants})
	g := &g1{w: w, pid: api.PaymentID(api.Scope("u1", "K1", true))}
	hold := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{Op: "charge", Times: 1}})
	first, resend := w.phone("phone-1", "R1"), w.phone("phone-1b", "R2")
	first.Journal("K1")
	order := phone.Story()
	t0 := time.Now()
	done := make(chan phone.Reply, 1)
	go func() {
		defer GinkgoRecover()
		done <- first.Send(ctx, "K1", order, false)
	}()
	// A1 has claimed and the PSP charged it; its answer is held.
	Expect(hold.WaitFired(ctx, 1)).To(Succeed())
	Expect(w.state(ctx, w.r1, g.pid)).To(Equal(ledger.Pending))
	// The story's clock: A1 arrived at 0.02, its resend leaves at 0.45.
	time.Sleep(time.Until(t0.Add(storytime.D(0.45 - storytime.Arrival))))
	// The lag is in effect, read at R2 itself: at the resend R2's replica
	// has no row of pay_7 and R2's key store no claim of K1. With instant
	// replication R1's PENDING row would be there by now, and neither
	// spec would test what it says.
	Expect(w.state(ctx, w.r2, g.pid)).To(BeEmpty(), "R2's replica already holds R1's claim at 0.45: the Region lag was not in effect")
	Expect(w.record(ctx, w.r2, "K1")).To(BeNil(), "R2's key store holds K1 before the resend")
	g.a1p = resend.Send(ctx, "K1", order, true)
	hold.Release()
	select {
	case g.a1 = <-done:
	case <-time.After(eventually(storytime.PhoneTimeout)):
		Fail("A1 never returned")
	}
	GinkgoWriter.Printf("A1: %s (%s); A1': %s (%s)\n", g.a1, g.a1.Region, g.a1p, g.a1p.Region)
	Expect(g.a1.Region).To(Equal("R1"))
	Expect(g.a1.Outcome).To(Equal(history.OutcomeSucceeded))
	Expect(g.a1.PaymentID).To(Equal(g.pid))
	// Replication converges: both Regions end with R1's version of the item.
	Eventually(func() string { return w.state(ctx, w.r2, g.pid) }).WithTimeout(eventually(3)).WithPolling(20 * time.Millisecond).
		Should(Equal(ledger.Succeeded))
	Eventually(func() int64 { return w.mrecStats("R2").Won }).WithTimeout(eventually(3)).Should(BeNumerically(">=", 1))
	return g
}

var _ = Describe("G1: two active Regions, one claim, 1.0 s of replication lag (seed F2)", Label("G1"), func() {
	It("holds: home-Region routing sends A1' to R1, which answers 409; one charge, one credit, m1 12000 -> 15000", func(ctx SpecContext) {
		g := runG1(ctx)
		w := g.w
		Expect(g.a1p.Region).To(Equal("R1"))
		Expect(g.a1p.Code).To(Equal(http.StatusConflict))
		Expect(g.a1p.Outcome).To(Equal(history.OutcomeInProgress))
		Eventually(func() int { return w.countCredits(ctx, w.r1) }).WithTimeout(eventually(5)).Should(Equal(1))
		// R2 ran nothing, read from what R2's API and the PSP keep, not from
		// the router that says where it sent what: R2's key store never got
		// a claim of K1 (key records are Regional, mrec replicates only the
		// payments), and the PSP's own log has one call under pay_7's key,
		// A1's; R1's 409 to A1' made none.
		Expect(w.record(ctx, w.r2, "K1")).To(BeNil(), "R2's API claimed K1")
		Expect(w.psp.CallsWithKey(g.pid + ":charge")).To(HaveLen(1))
		Expect(w.psp.Calls()).To(HaveLen(1), "a PSP call besides A1's")
		Expect(w.countCredits(ctx, w.r2)).To(Equal(0))
		Expect(w.psp.Charges()).To(HaveLen(1))
		Expect(w.balance(ctx, w.r1, true)).To(Equal(int64(15000)))
		Expect(w.check(ctx, w.r1, w.r2)).To(matchers.HaveNoViolations())
		Expect(w.regionsOf("phone-1b")).To(Equal([]string{"R1:in_progress"}))
	}, SpecTimeout(3*time.Minute))

	It("caught (route-nearest-region): R2 claims K1 on its own replica during the lag; one charge but two credits", func(ctx SpecContext) {
		g := runG1(ctx, mutant.NearestRegion)
		w := g.w
		Expect(g.a1p.Region).To(Equal("R2"))
		// R2's replica had no claim, so R2 ran the whole path; the PSP
		// replayed the derived key, so there is still one charge.
		Expect(g.a1p.Outcome).To(Equal(history.OutcomeSucceeded))
		Expect(w.regionsOf("phone-1b")).To(Equal([]string{"R2:succeeded"}))
		Eventually(func() int { return w.countCredits(ctx, w.r1) }).WithTimeout(eventually(5)).Should(Equal(1))
		Eventually(func() int { return w.countCredits(ctx, w.r2) }).WithTimeout(eventually(5)).Should(Equal(1))
		Expect(w.psp.Charges()).To(HaveLen(1))
		// R2 ran the path, from R2's own key store and the PSP's log: R2's
		// API claimed K1, and its call under the derived key was replayed.
		Expect(w.record(ctx, w.r2, "K1")).NotTo(BeNil(), "R2's API never claimed K1")
		calls := w.psp.CallsWithKey(g.pid + ":charge")
		Expect(calls).To(HaveLen(2))
		Expect([]bool{calls[0].Replayed, calls[1].Replayed}).To(ConsistOf(false, true))
		// Each Region's balance shows one credit: last writer wins would
		// hide the duplicate in a global balance table, the credits do not.
		Expect(w.balance(ctx, w.r1, false)).To(Equal(int64(15000)))
		Expect(w.balance(ctx, w.r2, false)).To(Equal(int64(15000)))
		// Exactly one finding: m1 credited twice for one charge.
		Expect(w.check(ctx, w.r1, w.r2)).To(matchers.HaveExactViolations(checker.KindDoubleCredit))
	}, SpecTimeout(3*time.Minute))
})
