package reference

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

var _ = Describe("A. Keys and claims", func() {

	Describe("the happy path and bad input", Label("basic"), func() {
		It("charges once and answers every repeat from the key record", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			ph := w.phone("phone-1", "u1")
			ph.Journal("K1")
			r1 := ph.Send(ctx, "K1", phone.Story(), false)
			Expect(r1.Code).To(Equal(http.StatusOK), r1.String())
			Expect(r1.PaymentID).To(Equal(pid("u1", "K1")))
			r2 := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r2.Code).To(Equal(http.StatusOK), r2.String())
			Expect(r2.PaymentID).To(Equal(r1.PaymentID))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K1") + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{pid("u1", "K1"): ledger.Succeeded}))
			Expect(w.outbox(ctx)).To(HaveLen(1))
			Expect(w.outbox(ctx)[0].EventID).To(Equal(pid("u1", "K1") + ":SUCCEEDED"))
			Expect(w.record(ctx, "u1", "K1").State).To(Equal(keystore.Done))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("answers bad input with a clear 4xx and leaves no row behind", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			ph := w.phone("phone-1", "u1")
			o := phone.Story()
			cases := []struct {
				name string
				key  string
				body string
				want string
			}{
				{"malformed JSON", "K1", `{"order_id": "42", "amount": 3000,`, "malformed JSON"},
				{"missing key header", "", string(o.Body()), "missing Idempotency-Key"},
				{"key over the length limit", strings.Repeat("k", 256), string(o.Body()), "over the limit of 255"},
				{"negative amount", "K2", `{"order_id":"42","amount":-3000,"currency":"USD","payment_method":"pm_1"}`, `"amount" must be positive`},
				{"non-integer amount", "K3", `{"order_id":"42","amount":30.5,"currency":"USD","payment_method":"pm_1"}`, `"amount" must be an integer`},
				{"amount as a string", "K4", `{"order_id":"42","amount":"3000","currency":"USD","payment_method":"pm_1"}`, `"amount" must be an integer`},
				{"unknown currency", "K5", `{"order_id":"42","amount":3000,"currency":"XYZ","payment_method":"pm_1"}`, `unknown currency "XYZ"`},
				{"missing order id", "K6", `{"amount":3000,"currency":"USD","payment_method":"pm_1"}`, `"order_id" is required`},
			}
			for _, c := range cases {
				r := ph.SendBody(ctx, c.key, o, []byte(c.body), false)
				Expect(r.Code).To(Equal(http.StatusBadRequest), c.name+": "+r.String())
				Expect(r.Message).To(ContainSubstring(c.want), c.name)
			}
			Expect(w.payments(ctx)).To(BeEmpty())
			Expect(w.psp.Charges()).To(BeEmpty())
			for _, k := range []string{"K1", "K2", "K3", "K4", "K5", "K6"} {
				Expect(w.record(ctx, "u1", k)).To(BeNil(), k)
			}
			Expect(w.stat("claims")).To(BeZero())
		}, SpecTimeout(time.Minute))
	})

	// A1: the PSP charges and its reply is lost (held until the API's
	// deadline). The payment goes UNKNOWN with a pointer; the resolver
	// replays pay_7:charge and settles it.
	a1 := func(ctx SpecContext, w *world) (phone.Reply, phone.Reply, phone.Reply) {
		id := pid("u1", "K1")
		lost := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{PSPKey: id + ":charge", Times: 1}})
		// Hold the resolver so the UNKNOWN state can be seen, then let it go.
		Expect(w.st.Resolver.Proc.Pause()).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(lost.Fired()).To(Equal(int64(1)), "the PSP's reply was not lost")
		Expect(w.payment(ctx, id).State).To(Equal(ledger.Unknown))
		rec := w.record(ctx, "u1", "K1")
		Expect(rec.State).To(Equal(keystore.Pointer))
		Expect(rec.PaymentID).To(Equal(id))
		r2 := ph.Send(ctx, "K1", phone.Story(), true)
		Expect(w.st.Resolver.Proc.Paused()).To(BeTrue())
		Expect(w.st.Resolver.Proc.Resume()).To(Succeed())
		Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
		r3 := ph.Send(ctx, "K1", phone.Story(), true)
		return r1, r2, r3
	}

	Describe("A1 lost PSP reply", Label("A1"), func() {
		It("holds: UNKNOWN with a pointer, the resolver replays the derived key, one charge", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			r1, r2, r3 := a1(ctx, w)
			Expect([]int{r1.Code, r2.Code, r3.Code}).To(Equal([]int{http.StatusAccepted, http.StatusAccepted, http.StatusOK}))
			Expect([]string{r1.Outcome, r2.Outcome, r3.Outcome}).To(Equal([]string{history.OutcomeProcessing, history.OutcomeProcessing, history.OutcomeSucceeded}))
			Expect([]string{r1.PaymentID, r2.PaymentID, r3.PaymentID}).To(Equal([]string{id, id, id}))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			p := w.payment(ctx, id)
			Expect(p.PSPCharge).NotTo(BeEmpty())
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.outbox(ctx)).To(ConsistOf(ledger.OutboxRow{EventID: id + ":SUCCEEDED", PaymentID: id, Merchant: "m1", Amount: 3000, Currency: "USD"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(2*time.Minute))

		It("caught: a resolver that mints a fresh PSP key charges twice", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{mutants: []mutant.Switch{mutant.ResolverFreshPSPKey}})
			id := pid("u1", "K1")
			_, _, r3 := a1(ctx, w)
			Expect(r3.Outcome).To(Equal(history.OutcomeSucceeded))
			Expect(w.psp.Charges()).To(HaveLen(2))
			Expect(pspKeys(w.psp.Charges())[0]).To(Equal(id + ":charge"))
			Expect(pspKeys(w.psp.Charges())[1]).To(HavePrefix(id + ":resolve-"))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCharge))
		}, SpecTimeout(2*time.Minute))
	})
})
