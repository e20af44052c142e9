package delivery

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/targets/relay"
)

// deadLetter is one parked record.
type deadLetter struct {
	offset int64
	reason string
}

func (w *world) deadLetters(ctx context.Context) []deadLetter {
	GinkgoHelper()
	rows, err := w.pool.Query(ctx, `SELECT "offset", reason FROM dead_letters ORDER BY "offset"`)
	Expect(err).NotTo(HaveOccurred())
	var out []deadLetter
	for rows.Next() {
		var d deadLetter
		Expect(rows.Scan(&d.offset, &d.reason)).To(Succeed())
		out = append(out, d)
	}
	Expect(rows.Err()).To(Succeed())
	return out
}

var _ = Describe("Poison input", Label("poison"), func() {
	It("dead-letters a malformed record and an event for an unknown payment with their reasons, then moves on", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.startWorker(ctx, "worker-1", workerOpts{})
		unknown := relay.Event{Type: relay.TypePaymentSucceeded, EventID: "pay_404:SUCCEEDED", PaymentID: "pay_404", Merchant: "m1", Amount: 3000, Currency: "USD"}
		Expect(srv.Kafka.ProduceSync(ctx,
			&kgo.Record{Topic: w.topic, Key: []byte("junk-1"), Value: []byte("{not json")},
			&kgo.Record{Topic: w.topic, Key: []byte(unknown.EventID), Value: unknown.Encode(),
				Headers: []kgo.RecordHeader{{Key: relay.HeaderEventID, Value: []byte(unknown.EventID)}}},
		).FirstErr()).To(Succeed())
		w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
		w.startRelay(ctx, "relay-1", relayOpts{})
		w.settle(ctx, true)

		dl := w.deadLetters(ctx)
		Expect(dl).To(HaveLen(2))
		Expect(dl[0]).To(Equal(deadLetter{0, "malformed: value is not a JSON event: invalid character 'n' looking for beginning of object key string"}))
		Expect(dl[1]).To(Equal(deadLetter{1, `unknown payment: the ledger has no payment "pay_404"`}))
		// The records behind them were not retried forever: the payment
		// after them went through.
		Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
		Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
		Expect(w.screen(ctx, "u1").Shown).To(HaveLen(1))
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	})
})
