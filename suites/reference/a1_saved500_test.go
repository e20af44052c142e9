package reference

import (
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
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// A1 with a saved 500 (SCENARIOS.md, the paragraph under group A): the PSP
// charges and answers 500, and saves that 500 under the key as Stripe does,
// so replaying pay_7:charge can only return the 500 again. The reference's
// resolver then finds the charge at the PSP by the payment id in its
// metadata; with that fallback off the payment stays UNKNOWN while the buyer
// is charged, and the checker names failed-but-charged.
var _ = Describe("A1 PSP charges, answers 500 and replays it for the key", Label("A1"), func() {

	// saved500 runs the story with the resolver held until the payment is
	// UNKNOWN, the key record points at it, and a replay of the derived key
	// has been seen to return the saved 500; then lets the resolver go.
	saved500 := func(ctx SpecContext, w *world) (*phone.Phone, phone.Reply, phone.Reply) {
		id := pid("u1", "K1")
		f := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.Error500AfterCharge, Match: fakepsp.Match{PSPKey: id + ":charge", Times: 1}})
		Expect(w.st.Resolver.Proc.Pause()).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(f.Fired()).To(Equal(int64(1)), "the PSP did not answer 500 after the charge")
		Expect(w.psp.Charges()).To(HaveLen(1), "the PSP did not charge before its 500")
		Expect(w.payment(ctx, id).State).To(Equal(ledger.Unknown))
		rec := w.record(ctx, "u1", "K1")
		Expect(rec.State).To(Equal(keystore.Pointer))
		Expect(rec.PaymentID).To(Equal(id))
		// The replay the resolver would make, made once by hand with the
		// same parameters: the PSP returns its saved 500, not the charge.
		o := phone.Story()
		replay, err := api.NewPSP(w.psp.URL(), w.psp.SecretKey()).Charge(ctx, id+":charge", o.Amount, o.Currency, o.PaymentMethod,
			map[string]string{"payment_id": id, "intent": api.Scope("u1", "K1", true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(replay.Verdict).To(Equal(api.Unknown))
		Expect(replay.Status).To(Equal(http.StatusInternalServerError), "%+v", replay)
		Expect(f.Fired()).To(Equal(int64(1)), "the replay's 500 came from the fault, not from the key's saved result")
		r2 := ph.Send(ctx, "K1", phone.Story(), true)
		Expect(w.st.Resolver.Proc.Paused()).To(BeTrue())
		Expect(w.st.Resolver.Proc.Resume()).To(Succeed())
		return ph, r1, r2
	}

	It("holds: the resolver finds the charge by metadata, SUCCEEDED with one charge, the phone hears succeeded", func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{})
		id := pid("u1", "K1")
		ph, r1, r2 := saved500(ctx, w)
		Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
		final, err := ph.Retry(ctx, "K1", phone.Story())
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{r1.Code, r2.Code, final.Code}).To(Equal([]int{http.StatusAccepted, http.StatusAccepted, http.StatusOK}))
		Expect([]string{r1.Outcome, r2.Outcome, final.Outcome}).To(Equal([]string{history.OutcomeProcessing, history.OutcomeProcessing, history.OutcomeSucceeded}))
		Expect([]string{r1.PaymentID, r2.PaymentID, final.PaymentID}).To(Equal([]string{id, id, id}))
		charges := w.psp.Charges()
		Expect(pspKeys(charges)).To(Equal([]string{id + ":charge"}))
		Expect(w.payment(ctx, id).PSPCharge).To(Equal(charges[0].Output.ChargeID))
		Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
		Expect(w.outbox(ctx)).To(ConsistOf(ledger.OutboxRow{EventID: id + ":SUCCEEDED", PaymentID: id, Merchant: "m1", Amount: 3000, Currency: "USD"}))
		rs := statsAt(w.st.Resolver.Admin)
		// The resolver's call reached the PSP under the payment's own key:
		// the PSP's log says so, not the resolver's counter.
		Expect(len(w.psp.CallsWithKey(id+":charge"))).To(BeNumerically(">=", 2), "the PSP saw no resolver call under the key")
		Expect(rs).To(HaveKeyWithValue("found", int64(1)), "the payment was not settled by the search fallback: %v", rs)
		Expect(rs).To(HaveKeyWithValue("settled", int64(1)))
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	}, SpecTimeout(2*time.Minute))

	It("holds (search not read-after-write): nothing found stays UNKNOWN, the charge is found once search sees it", func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{})
		id := pid("u1", "K1")
		// Search answers from an hour ago until the fault is removed.
		lag := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.SearchLag, Delay: time.Hour})
		ph, _, _ := saved500(ctx, w)
		Eventually(func() int64 { return statsAt(w.st.Resolver.Admin)["searches"] }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(BeNumerically(">=", 2))
		Expect(lag.Fired()).To(BeNumerically(">=", 1), "search never answered from the past")
		Expect(w.payment(ctx, id).State).To(Equal(ledger.Unknown), "settled on a search that could not see the charge")
		Expect(statsAt(w.st.Resolver.Admin)).To(HaveKeyWithValue("found", int64(0)))
		lag.Undo()
		Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
		final, err := ph.Retry(ctx, "K1", phone.Story())
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{final.Outcome, final.PaymentID}).To(Equal([]string{history.OutcomeSucceeded, id}))
		Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
		Expect(statsAt(w.st.Resolver.Admin)).To(HaveKeyWithValue("found", int64(1)))
		Expect(w.outbox(ctx)).To(HaveLen(1))
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	}, SpecTimeout(2*time.Minute))

	It("caught: a resolver that only replays the key leaves the payment UNKNOWN while charged: failed-but-charged", func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{mutants: []mutant.Switch{mutant.ResolverReplayOnly}})
		id := pid("u1", "K1")
		ph, _, _ := saved500(ctx, w)
		// The resolver runs and replays, and every replay gets the 500.
		// The PSP's own log shows each replay under the key (and answers
		// each with the saved 500).
		before := len(w.psp.CallsWithKey(id + ":charge"))
		Eventually(func() int { return len(w.psp.CallsWithKey(id + ":charge")) }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(BeNumerically(">=", before+3))
		ph.Attempts = 4
		final, err := ph.Retry(ctx, "K1", phone.Story())
		Expect(err).To(MatchError(phone.ErrGaveUp))
		Expect(final.Outcome).To(BeEmpty())
		last := ph.Sent[len(ph.Sent)-1]
		Expect([]string{last.Outcome, last.PaymentID}).To(Equal([]string{history.OutcomeProcessing, id}))
		Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
		Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Unknown}))
		Expect(w.outbox(ctx)).To(BeEmpty())
		rs := statsAt(w.st.Resolver.Admin)
		Expect(rs).To(HaveKeyWithValue("searches", int64(0)))
		Expect(rs).To(HaveKeyWithValue("settled", int64(0)))
		res := w.check(ctx)
		Expect(res).To(matchers.HaveExactViolations(checker.KindFailedButCharged))
		Expect(res.Violations[0].Intent).To(Equal(api.Scope("u1", "K1", true)))
	}, SpecTimeout(2*time.Minute))

	It("holds (no resolver, the PSP's webhook settles it): SUCCEEDED with one charge, the phone hears succeeded", func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{noResolver: true})
		id := pid("u1", "K1")
		_, err := w.psp.RegisterWebhook(w.st.Webhook.URL+webhook.Path, "payment_intent.succeeded")
		Expect(err).NotTo(HaveOccurred())
		f := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.Error500AfterCharge, Match: fakepsp.Match{PSPKey: id + ":charge", Times: 1}})
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		final, err := ph.Pay(ctx, "K1", phone.Story())
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Fired()).To(Equal(int64(1)), "the PSP did not answer 500 after the charge")
		Expect(final.Code).To(Equal(http.StatusOK), final.String())
		Expect([]string{final.Outcome, final.PaymentID}).To(Equal([]string{history.OutcomeSucceeded, id}))
		Eventually(func() int { return len(w.psp.Deliveries()) }).WithTimeout(eventually(5)).Should(Equal(1))
		Expect(w.psp.Deliveries()[0].Status).To(Equal(http.StatusOK))
		Expect(statsAt(w.st.Webhook.Admin)).To(HaveKeyWithValue("moved", int64(1)))
		charges := w.psp.Charges()
		Expect(pspKeys(charges)).To(Equal([]string{id + ":charge"}))
		Expect(w.payment(ctx, id).PSPCharge).To(Equal(charges[0].Output.ChargeID))
		Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
		Expect(w.outbox(ctx)).To(ConsistOf(ledger.OutboxRow{EventID: id + ":SUCCEEDED", PaymentID: id, Merchant: "m1", Amount: 3000, Currency: "USD"}))
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	}, SpecTimeout(2*time.Minute))
})
