package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// chargeAtPSP does the API tier's PSP call for payment id: a confirmed
// PaymentIntent under the derived key, naming the payment in its metadata so
// the webhook can find it.
func chargeAtPSP(ctx context.Context, psp *fakepsp.PSP, id string, amount int64) {
	GinkgoHelper()
	form := url.Values{"amount": {fmt.Sprint(amount)}, "currency": {"usd"}, "payment_method": {"pm_1"}, "confirm": {"true"},
		"metadata[payment_id]": {id}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, psp.URL()+"/v1/payment_intents", strings.NewReader(form.Encode()))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+psp.SecretKey())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", id+":charge")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
}

// webhookStats reads the webhook tier's counters.
func webhookStats(p *proc) map[string]int64 {
	GinkgoHelper()
	resp, err := http.Get(p.Admin + api.StatsPath)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var m map[string]int64
	Expect(json.NewDecoder(resp.Body).Decode(&m)).To(Succeed())
	return m
}

var _ = Describe("D5: the PSP delivers webhook evt_1 several times (at least once, with retries)", Label("D5"), func() {
	run := func(ctx context.Context, mutants string) (*world, *proc) {
		w := newWorld(ctx)
		psp, err := fakepsp.Start(fakepsp.Config{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(psp.Close)
		args := []string{"-pg", w.dsn, "-secret", psp.WebhookSecret()}
		if mutants != "" {
			args = append(args, "-mutants", mutants)
		}
		wh := w.start(ctx, "webhook", "webhook", "", args...)
		_, err = psp.RegisterWebhook(wh.Addrs["http"]+webhook.Path, "payment_intent.succeeded")
		Expect(err).NotTo(HaveOccurred())
		psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.WebhookDuplicates, Match: fakepsp.Match{PSPKey: "pay_7:charge"}, Extra: 2})

		_, err = w.led.InsertPending(ctx, ledger.Payment{ID: "pay_7", Caller: "u1", Key: "K1", Fingerprint: "fp-pay_7",
			Amount: 3000, Currency: "USD", Merchant: "m1", Method: "pm_1", OrderID: "42", PSPKey: "pay_7:charge"})
		Expect(err).NotTo(HaveOccurred())
		w.startWorker(ctx, "worker-1", workerOpts{})
		w.startRelay(ctx, "relay-1", relayOpts{})
		chargeAtPSP(ctx, psp, "pay_7", 3000)
		// The fault fired: one event, three 2xx deliveries of it.
		Eventually(func(g Gomega) {
			var ok, dups int
			ids := map[string]bool{}
			for _, d := range psp.Deliveries() {
				if d.EventType == "payment_intent.succeeded" && d.Status/100 == 2 {
					ok++
					ids[d.EventID] = true
					if d.Duplicate {
						dups++
					}
				}
			}
			g.Expect([]int{ok, dups, len(ids)}).To(Equal([]int{3, 2, 1}), "2xx deliveries, duplicate copies, distinct events")
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
		Expect(webhookStats(wh)["received"]).To(Equal(int64(3)))
		w.settle(ctx, true)
		w.extra = append(w.extra, psp.Charges()...)
		return w, wh
	}
	It("holds: the webhook inbox keyed by the PSP's event id makes one state move; one credit", func(ctx SpecContext) {
		w, wh := run(ctx, "")
		st := webhookStats(wh)
		Expect([]int64{st["moved"], st["dropped"]}).To(Equal([]int64{1, 2}), "moved, dropped")
		Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
		Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
		Expect(w.screen(ctx, "u1").Shown).To(HaveLen(1))
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	})
	It("caught: blind-webhook-update moves on every copy with a fresh event id (double-credit)", func(ctx SpecContext) {
		w, wh := run(ctx, string(mutant.BlindWebhookUpdate))
		Expect(webhookStats(wh)["moved"]).To(Equal(int64(3)))
		credits := 0
		for _, n := range w.creditsPerEvent(ctx) {
			credits += n
		}
		Expect(credits).To(Equal(3))
		Expect(w.readBalance(ctx, "m1")).To(Equal(int64(21000)))
		// Two kinds, both this bug: each fresh event id is a new event to
		// the worker, which credits it and notifies again; the replace id
		// keeps one notification on screen, but the phone alerts three
		// times (notification-stacked).
		Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit, checker.KindNotificationStacked))
	})
})
