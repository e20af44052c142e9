package delivery

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// recipient is the E3 buyer. Dedup windows and caps live in the suite's one
// Valkey, so the recipient is per world: no spec sees another's window.
func (w *world) recipient() string { return "u1." + w.name }

// remind publishes a reminder for invoice inv as the billing system would and
// waits until the worker has decided it (its notification record exists and
// is no longer PENDING), so the next step of a spec starts after it.
func (w *world) remind(ctx context.Context, eventID, inv string) string {
	GinkgoHelper()
	rem := worker.Reminder{Type: worker.TypeReminder, EventID: eventID, Recipient: w.recipient(), Template: "invoice_overdue", BusinessKey: inv}
	rec := &kgo.Record{Topic: w.topic, Key: []byte(eventID), Value: rem.Encode(),
		Headers: []kgo.RecordHeader{{Key: relay.HeaderEventID, Value: []byte(eventID)}}}
	Expect(srv.Kafka.ProduceSync(ctx, rec).FirstErr()).To(Succeed())
	Eventually(ctx, func() string { st, _ := w.notifState(ctx, eventID); return st }).
		WithTimeout(30*time.Second).WithPolling(20*time.Millisecond).
		Should(BeElementOf(worker.StateSent, worker.StateDropped), "reminder %s not decided", eventID)
	return eventID
}

// verdicts lists "STATE/verdict" of each event's notification record.
func (w *world) verdicts(ctx context.Context, eventIDs ...string) []string {
	GinkgoHelper()
	var out []string
	for _, ev := range eventIDs {
		st, v := w.notifState(ctx, ev)
		out = append(out, st+"/"+v)
	}
	return out
}
