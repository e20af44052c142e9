package scenario

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// QRecord is one record a queue check produces: the payment it carries
// and where the broker put it.
type QRecord struct {
	Ref    PaymentRef
	event  string
	amount int64
	poison bool
	key    string
	value  string
	// dedup is the broker's dedup id, on a broker with a dedup window; a
	// copy carries its original's. sent and acked bracket its produce.
	dedup       string
	sent, acked time.Time
	Partition   int32
	Offset      int64
	// id is the broker's id of the record, on a broker that names records.
	id string
	// dupNote, on a copy that carries a dedup id, says where it fell
	// against the broker's window (Q-dup's evidence).
	dupNote string
	// place is the broker's words for where a record is (broker.Place).
	place func(broker.Pos) broker.Place
	// vals fill the key and message templates: a stamped copy refills
	// them with its own send time (queue_stamped.go).
	vals map[string]string
}

// Pos is where the broker stored the record.
func (r *QRecord) Pos() broker.Pos { return broker.Pos{Lane: r.Partition, Offset: r.Offset, ID: r.id} }

// Place is where the record is, in the broker's words.
func (r *QRecord) Place() broker.Place { return r.place(r.Pos()) }

// String is the record in a list: its event id at its place ("evt_1@2/7" on Kafka).
func (r *QRecord) String() string { return r.event + "@" + r.Place().Short }

// NewQRecord makes up a payment no other record of the run carries. With
// consumer.create_first the payment is made through the create request
// first and the record carries the service's payment id; a create that
// did not succeed makes the check inconclusive (nil).
func NewQRecord(ctx context.Context, e *Env, t *T) *QRecord {
	in := e.NewIntent(0)
	n := strings.TrimPrefix(in.Meaning.OrderID, "ord-")
	r := &QRecord{Ref: PaymentRef{OrderID: in.Meaning.OrderID, PaymentID: "qpay-" + n, PSPPaymentID: "pi_q" + strings.ReplaceAll(n, "-", "")},
		event: "evt_q" + strings.ReplaceAll(n, "-", ""), amount: in.Meaning.Amount, Offset: -1, place: e.Queue.Broker.Place}
	if e.Queue.Cfg.CreateFirst {
		a := t.Send(ctx, "the record's payment, made first (consumer.create_first)", in, nil)
		if a.Outcome != history.OutcomeSucceeded || a.PaymentID == "" {
			t.Inconclusive(fmt.Sprintf("the create of a record's payment did not succeed with a payment id (status %d, outcome %s)", a.Status, a.Outcome),
				"consumer.create_first makes each record's payment through the create request first")
			return nil
		}
		r.Ref.PaymentID = a.PaymentID
	}
	vals := map[string]string{"payment_id": r.Ref.PaymentID, "psp_payment_id": r.Ref.PSPPaymentID, "order_id": r.Ref.OrderID,
		"event_id": r.event, "amount": fmt.Sprint(r.amount), "merchant": "acct_idemcheck_merchant", "now_ns": fmt.Sprint(time.Now().UnixNano())}
	r.vals = vals
	r.key, r.value = driver.Fill(e.Queue.Cfg.Key, vals), driver.Fill(e.Queue.Cfg.Message, vals)
	if e.Queue.Caps&broker.DedupWindow != 0 {
		r.dedup = "idemcheck-" + r.event
	}
	// A broker without lanes leaves consumer.partitions 0: one lane.
	if n := e.Queue.Cfg.Partitions; n > 0 {
		h := fnv.New32a()
		h.Write([]byte(r.key))
		r.Partition = int32(h.Sum32() % uint32(n))
	}
	return r
}

// PoisonRecord is a record on partition p no consumer can process.
func PoisonRecord(e *Env, p int32) *QRecord {
	r := &QRecord{poison: true, event: "poison", key: "idemcheck-poison", value: e.Queue.Cfg.Poison, Partition: p, Offset: -1, place: e.Queue.Broker.Place}
	if e.Queue.Caps&broker.DedupWindow != 0 {
		// Each poison is a record of its own, never a retry of another.
		r.dedup = fmt.Sprintf("idemcheck-poison-%d", poisons.Add(1))
	}
	return r
}

var poisons atomic.Int64

// CopyOf is a second record with the same key and body: a producer retry
// whose first send had landed.
func CopyOf(r *QRecord) *QRecord { c := *r; c.Offset, c.id, c.dupNote = -1, "", ""; return &c }
