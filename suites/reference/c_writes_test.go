package reference

import (
	"bytes"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// deliver posts a PSP event signed with secret to the webhook tier, the way
// the PSP delivers it, at a moment the spec chooses.
func deliver(w *world, evtID, paymentID, secret string) int {
	body := []byte(`{"id":"` + evtID + `","object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_` + paymentID +
		`","object":"payment_intent","status":"succeeded","latest_charge":"ch_late","metadata":{"payment_id":"` + paymentID + `"}}}}`)
	req, err := http.NewRequest(http.MethodPost, w.st.Webhook.URL+webhook.Path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", webhook.Sign(body, secret, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	return resp.StatusCode
}

func statsAt(admin string) map[string]int64 {
	m, err := readStats(admin)
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("C. Idempotent writes", func() {

	// The A1 story up to UNKNOWN with the resolver held.
	unknown := func(ctx SpecContext, w *world) *phone.Phone {
		id := pid("u1", "K1")
		lost := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{PSPKey: id + ":charge", Times: 1}})
		Expect(w.st.Resolver.Proc.Pause()).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r.Outcome).To(Equal(history.OutcomeProcessing), r.String())
		Expect(lost.Fired()).To(Equal(int64(1)))
		Expect(w.payment(ctx, id).State).To(Equal(ledger.Unknown))
		return ph
	}

	// As unknown, but the PSP's webhook may settle the payment before the
	// API's deadline, so the first answer is processing or succeeded.
	unknownOrDone := func(ctx SpecContext, w *world) *phone.Phone {
		id := pid("u1", "K1")
		lost := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{PSPKey: id + ":charge", Times: 1}})
		Expect(w.st.Resolver.Proc.Pause()).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r.Outcome).To(BeElementOf(history.OutcomeProcessing, history.OutcomeSucceeded), r.String())
		Expect(lost.Fired()).To(Equal(int64(1)))
		return ph
	}

	resumeResolver := func(w *world) {
		Expect(w.st.Resolver.Proc.Resume()).To(Succeed())
		before := statsAt(w.st.Resolver.Admin)["sweeps"]
		Eventually(func() int64 { return statsAt(w.st.Resolver.Admin)["sweeps"] }).WithTimeout(eventually(3)).
			Should(BeNumerically(">=", before+2), "the resolver did not sweep after waking")
	}

	// Webhook first (10.50), evt_1 again (10.90), resolver (11.00).
	webhookFirst := func(ctx SpecContext, w *world) *phone.Phone {
		ph := unknown(ctx, w)
		id := pid("u1", "K1")
		Expect(deliver(w, "evt_1", id, w.psp.WebhookSecret())).To(Equal(http.StatusOK))
		Expect(deliver(w, "evt_1", id, w.psp.WebhookSecret())).To(Equal(http.StatusOK))
		resumeResolver(w)
		return ph
	}

	Describe("C1 late webhook", Label("C1"), func() {
		It("holds (resolver first, evt_1 later): the webhook's move is stale, one outbox row", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			ph := unknown(ctx, w)
			resumeResolver(w)
			Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(5)).Should(Equal(ledger.Succeeded))
			Expect(deliver(w, "evt_1", id, "whsec_wrong")).To(Equal(http.StatusBadRequest))
			Expect(deliver(w, "evt_1", id, w.psp.WebhookSecret())).To(Equal(http.StatusOK))
			Expect(deliver(w, "evt_1", id, w.psp.WebhookSecret())).To(Equal(http.StatusOK))
			wh := statsAt(w.st.Webhook.Admin)
			Expect(wh).To(HaveKeyWithValue("bad_signature", int64(1)))
			Expect(wh).To(HaveKeyWithValue("stale", int64(1)))
			Expect(wh).To(HaveKeyWithValue("dropped", int64(1)))
			Expect(wh).To(HaveKeyWithValue("moved", int64(0)))
			r := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(w.outbox(ctx)).To(ConsistOf(ledger.OutboxRow{EventID: id + ":SUCCEEDED", PaymentID: id, Merchant: "m1", Amount: 3000, Currency: "USD"}))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds (webhook first, evt_1 twice, resolver last): one move, the repeat dropped, the resolver finds nothing", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			ph := webhookFirst(ctx, w)
			wh := statsAt(w.st.Webhook.Admin)
			Expect(wh).To(HaveKeyWithValue("moved", int64(1)))
			Expect(wh).To(HaveKeyWithValue("dropped", int64(1)))
			Expect(statsAt(w.st.Resolver.Admin)).To(HaveKeyWithValue("psp_calls", int64(0)))
			Expect(w.payment(ctx, id).State).To(Equal(ledger.Succeeded))
			r := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(r.PaymentID).To(Equal(id))
			Expect(w.outbox(ctx)).To(ConsistOf(ledger.OutboxRow{EventID: id + ":SUCCEEDED", PaymentID: id, Merchant: "m1", Amount: 3000, Currency: "USD"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds (the PSP's own signed deliveries, three copies, during the held reply): one move, one outbox row", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			_, err := w.psp.RegisterWebhook(w.st.Webhook.URL+webhook.Path, "payment_intent.succeeded")
			Expect(err).NotTo(HaveOccurred())
			dup := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.WebhookDuplicates, Match: fakepsp.Match{}, Extra: 2})
			ph := unknownOrDone(ctx, w)
			Eventually(func() int { return len(w.psp.Deliveries()) }).WithTimeout(eventually(5)).Should(Equal(3))
			for _, d := range w.psp.Deliveries() {
				Expect(d.Status).To(Equal(http.StatusOK), "%+v", d)
			}
			Expect(dup.Fired()).To(BeNumerically(">=", 1))
			Eventually(func() int64 { return statsAt(w.st.Webhook.Admin)["dropped"] }).WithTimeout(eventually(5)).Should(Equal(int64(2)))
			Expect(statsAt(w.st.Webhook.Admin)).To(HaveKeyWithValue("moved", int64(1)))
			Expect(w.payment(ctx, id).State).To(Equal(ledger.Succeeded))
			r := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(w.outbox(ctx)).To(HaveLen(1))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a blind update writes an outbox row per answer: two credits", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{mutants: []mutant.Switch{mutant.BlindWebhookUpdate}})
			ph := webhookFirst(ctx, w)
			Expect(w.outbox(ctx)).To(HaveLen(2))
			// The phone's retry, as in the holds specs: without it the
			// client's last answer is processing and the checker adds a
			// failed-but-charged this mutant did not cause.
			r := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit))
		}, SpecTimeout(time.Minute))
	})
})
