package worker

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/push"
)

// item is one record of a polled batch and what the batch decided for it.
type item struct {
	rec *kgo.Record
	m   message
	n   push.Notification
	// dead is the dead-letter reason of a record that can never be
	// processed; such an item takes no further step.
	dead string
	// fresh: this delivery applied the effect (the inbox had not seen it,
	// or there is no inbox). Of several copies of one event in a batch,
	// at most the first is fresh.
	fresh bool
	// recorded: this batch's transaction wrote the event's notification
	// record, PENDING.
	recorded bool
}

// handleBatch applies one delivery of every record in recs: decode, then one
// transaction for the batch's inbox rows, credits, notification intents and
// dead letters. It returns the batch's items for notifyBatch. A failure
// leaves the batch for a retry, which the inbox turns into a redelivery.
func (w *Worker) handleBatch(ctx context.Context, recs []*kgo.Record) ([]item, error) {
	items := make([]item, len(recs))
	for i, r := range recs {
		items[i].rec = r
		m, err := decode(r)
		if err != nil {
			items[i].dead = err.Error()
			continue
		}
		items[i].m = m
	}
	if err := w.resolve(ctx, items); err != nil {
		return nil, err
	}
	if err := w.applyBatch(ctx, items); err != nil {
		return nil, err
	}
	for i := range items {
		if it := &items[i]; it.dead != "" {
			w.cfg.Log.Printf("worker %s: dead-lettered %s/%d@%d: %s", w.cfg.Name, it.rec.Topic, it.rec.Partition, it.rec.Offset, it.dead)
		}
	}
	if anyLive(items) {
		if err := failpoint.Hit(AfterCommitBeforePush); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func anyLive(items []item) bool {
	for i := range items {
		if items[i].dead == "" {
			return true
		}
	}
	return false
}

// resolve finds each payment event's recipient in one query and builds every
// live item's notification; a payment the ledger does not know is poison.
func (w *Worker) resolve(ctx context.Context, items []item) error {
	var ids []string
	for i := range items {
		if p := items[i].m.pay; items[i].dead == "" && p != nil {
			ids = append(ids, p.PaymentID)
		}
	}
	recipients, err := w.lookupPayments(ctx, ids)
	if err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		if it.dead != "" {
			continue
		}
		if p := it.m.pay; p != nil {
			recipient, known := recipients[p.PaymentID]
			if !known {
				it.dead = fmt.Sprintf("unknown payment: the ledger has no payment %q", p.PaymentID)
				continue
			}
			it.n = push.Notification{Recipient: recipient, PaymentID: p.PaymentID, EventID: it.m.eventID, Title: "Payment received"}
			if w.cfg.Guards.ReplaceID {
				it.n.ReplaceID = p.PaymentID
			}
			continue
		}
		// The business key names what a reminder announces (an invoice),
		// as a payment id does for a payment's notification: the history
		// groups notifications by it, so two copies of one logical
		// message on a screen read as stacked.
		rem := it.m.rem
		it.n = push.Notification{Recipient: rem.Recipient, Intent: rem.Intent(), PaymentID: rem.BusinessKey, EventID: it.m.eventID, Title: rem.Template}
		if w.cfg.Guards.ReplaceID {
			it.n.ReplaceID = it.m.eventID
		}
	}
	return nil
}
