package reference

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

var _ = Describe("A. Keys and claims, meaning and scope", func() {

	// A5: K1 reused with 3500; and K1 resent reordered with an extra field.
	a5 := func(ctx SpecContext, w *world) (first, changed, reordered phone.Reply) {
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		first = ph.Send(ctx, "K1", phone.Story(), false)
		Expect(first.Code).To(Equal(http.StatusOK), first.String())
		o := phone.Story()
		o.Amount = 3500
		changed = ph.Send(ctx, "K1", o, true)
		o = phone.Story()
		o.Reorder = true
		o.Extra = map[string]any{"client_ts": "2026-11-30T10:00:00Z"}
		reordered = ph.Send(ctx, "K1", o, true)
		return first, changed, reordered
	}

	Describe("A5 key reuse and fingerprints", Label("A5"), func() {
		It("holds: 3500 gets 422 with no claim and no PSP call; a reordered body is the same request", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			first, changed, reordered := a5(ctx, w)
			Expect(first.PaymentID).To(Equal(id))
			Expect(changed.Code).To(Equal(http.StatusUnprocessableEntity), changed.String())
			Expect(changed.Outcome).To(Equal(history.OutcomeMismatch))
			Expect(reordered.Code).To(Equal(http.StatusOK), reordered.String())
			Expect(reordered.PaymentID).To(Equal(id))
			Expect(w.stat("claims")).To(Equal(int64(1)))
			Expect(w.stat("psp_calls")).To(Equal(int64(1)))
			Expect(w.stat("mismatches")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(*w.psp.Charges()[0].Input.Amount).To(Equal(int64(3000)))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a fingerprint over raw bytes answers a true retry with 422", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.FingerprintRawBytes}})
			_, changed, reordered := a5(ctx, w)
			Expect(changed.Code).To(Equal(http.StatusUnprocessableEntity))
			Expect(reordered.Code).To(Equal(http.StatusUnprocessableEntity), reordered.String())
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindFalseMismatch))
		}, SpecTimeout(time.Minute))

		It("caught: without a fingerprint check the 3500 request gets the 3000 answer", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoFingerprintCheck}})
			_, changed, _ := a5(ctx, w)
			Expect(changed.Code).To(Equal(http.StatusOK), changed.String())
			Expect(changed.PaymentID).To(Equal(pid("u1", "K1")))
			Expect(w.psp.Charges()).To(HaveLen(1))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindMismatchAccepted))
		}, SpecTimeout(time.Minute))
	})

	// A6: u1 and u2 each send K1, u2 with its own order (43), or with one
	// that means the same as u1's (two buyers of one basket).
	a6 := func(ctx SpecContext, w *world, sameOrder bool) (phone.Reply, phone.Reply) {
		p1, p2 := w.phone("phone-1", "u1"), w.phone("phone-2", "u2")
		p1.Journal("K1")
		p2.Journal("K1")
		r1 := p1.Send(ctx, "K1", phone.Story(), false)
		o := phone.Story()
		if !sameOrder {
			o.OrderID = "43"
		}
		r2 := p2.Send(ctx, "K1", o, false)
		return r1, r2
	}

	Describe("A6 keys scoped to the caller", Label("A6"), func() {
		It("holds: each caller gets its own payment; no answer crosses callers", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			r1, r2 := a6(ctx, w, false)
			Expect(r1.Code).To(Equal(http.StatusOK), r1.String())
			Expect(r2.Code).To(Equal(http.StatusOK), r2.String())
			Expect(r1.PaymentID).To(Equal(pid("u1", "K1")))
			Expect(r2.PaymentID).To(Equal(pid("u2", "K1")))
			Expect(pspKeys(w.psp.Charges())).To(ConsistOf(pid("u1", "K1")+":charge", pid("u2", "K1")+":charge"))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{pid("u1", "K1"): ledger.Succeeded, pid("u2", "K1"): ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds: two callers with orders that mean the same each get their own payment", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			r1, r2 := a6(ctx, w, true)
			Expect(r1.PaymentID).To(Equal(pid("u1", "K1")), r1.String())
			Expect(r2.PaymentID).To(Equal(pid("u2", "K1")), r2.String())
			Expect(pspKeys(w.psp.Charges())).To(ConsistOf(pid("u1", "K1")+":charge", pid("u2", "K1")+":charge"))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		// One guard off: the scope is endpoint:key. u2's order means the
		// same as u1's, so the fingerprint check (still on) cannot tell
		// them apart and u2 is answered with u1's payment.
		It("caught: a key not scoped to the caller hands u2 u1's answer", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.KeyNotScoped}})
			r1, r2 := a6(ctx, w, true)
			Expect(r1.Code).To(Equal(http.StatusOK), r1.String())
			Expect(r2.Code).To(Equal(http.StatusOK), r2.String())
			Expect(r2.PaymentID).To(Equal(r1.PaymentID), "u2 received u1's payment")
			Expect(w.psp.Charges()).To(HaveLen(1))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindInconsistentAnswer))
		}, SpecTimeout(time.Minute))
	})

	// A7: the first attempt's reply is lost between the LB and api-1; the
	// retry lands on api-2, whose link is down, and gets a 502.
	a7 := func(ctx SpecContext, w *world) (phone.Reply, phone.Reply) {
		w.lbAdmin(http.MethodPut, "/route?pin=0")
		undo, err := w.st.APILinks[0].LoseReply()
		Expect(err).NotTo(HaveOccurred())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(w.st.APILinks[0].Fired()).To(BeNumerically(">", 0), "the reply was not lost")
		Expect(undo()).To(Succeed())
		down, err := w.st.APILinks[1].Disable()
		Expect(err).NotTo(HaveOccurred())
		w.lbAdmin(http.MethodPut, "/route?pin=rr&next=1")
		r2 := ph.Send(ctx, "K1", phone.Story(), true)
		Expect(down()).To(Succeed())
		return r1, r2
	}

	Describe("A7 an error on a retry after a lost reply", Label("A7"), func() {
		It("holds: the phone reads the payment before deciding and never reports failed", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, toxi: true})
			id := pid("u1", "K1")
			r1, r2 := a7(ctx, w)
			Expect(r1.Code).To(Equal(http.StatusBadGateway), r1.String())
			Expect(r2.Code).To(Equal(http.StatusBadGateway), r2.String())
			Expect(r2.Outcome).To(Equal(history.OutcomeSucceeded), "read after the error")
			Expect(r2.PaymentID).To(Equal(id))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a client that trusts the retry's error reports failed while the PSP charged", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, toxi: true, mutants: []mutant.Switch{mutant.ClientTrustsError}})
			_, r2 := a7(ctx, w)
			Expect(r2.Outcome).To(Equal(history.OutcomeFailed))
			Expect(w.psp.Charges()).To(HaveLen(1))
			// Told "failed" although charged: a wrong answer (the model) and
			// a client that never heard its payment succeed (quiescence).
			Expect(w.check(ctx)).To(matchers.HaveExactViolations(checker.KindInconsistentAnswer, checker.KindFailedButCharged))
		}, SpecTimeout(time.Minute))
	})
})
