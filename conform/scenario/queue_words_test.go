package scenario

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
	"github.com/idemcheck/idemcheck/conform/broker/kafka"
)

// kafkaWords is the fake broker speaking Kafka's words for a record's place.
type kafkaWords struct{ *brokertest.Fake }

func (kafkaWords) Place(p broker.Pos) broker.Place { return (&kafka.Kafka{}).Place(p) }

// twice credits every payment twice.
type twice struct{ amount int64 }

func (c twice) Credits(context.Context, PaymentRef) ([]int64, error) {
	return []int64{c.amount, c.amount}, nil
}

// wordsRun produces a record and its copy on b, logging, and judges them
// against two credits and a group that committed nothing.
func wordsRun(t *testing.T, b broker.Broker, f *brokertest.Fake) (e *Env, recs []*QRecord, log string, ct *T) {
	t.Helper()
	e = fakeQueueEnv(f)
	e.Queue.Broker = b
	e.Queue.Cfg.Key, e.Queue.Cfg.Message = "{{payment_id}}", `{"event_id": "{{event_id}}", "amount": {{amount}}}`
	var buf bytes.Buffer
	e.Log = &buf
	ctx := context.Background()
	r := NewQRecord(ctx, e, &T{Env: e})
	recs = []*QRecord{r, CopyOf(r)}
	if err := e.Queue.Produce(ctx, e, recs...); err != nil {
		t.Fatal(err)
	}
	log = buf.String()
	e.Queue.Credits = twice{r.amount}
	ct = &T{Env: e}
	e.Queue.RequireCommitted(ctx, ct, recs, 0)
	ct.JudgeQueue(ctx, recs, nil)
	return e, recs, log, ct
}

// TestKafkaRecordWordsAreTodays: on Kafka a record's place reads as it
// did before brokers described it: each text below is built with the
// format the queue checks printed before (partition and offset numbers
// filled in by hand), and the broker's words must give it exactly.
func TestKafkaRecordWordsAreTodays(t *testing.T) {
	f := &brokertest.Fake{}
	_, recs, log, ct := wordsRun(t, kafkaWords{f}, f)
	r, c := recs[0], recs[1]
	p := r.Partition
	if got, want := r.String(), fmt.Sprintf("%s@%d/%d", r.event, p, 0); got != want {
		t.Errorf("record %q, want %q", got, want)
	}
	wantLog := fmt.Sprintf("  produced %s (key %s) at partition %d offset %d\n", r.event, r.key, p, 0) +
		fmt.Sprintf("  produced %s (key %s) at partition %d offset %d\n", c.event, c.key, p, 1)
	if log != wantLog {
		t.Errorf("log %q, want %q", log, wantLog)
	}
	wantInc := fmt.Sprintf("group g never committed past [%s@%d/%d %s@%d/%d] within 0s (committed nothing): does the service consume $KAFKA_TOPIC in the group named by $KAFKA_GROUP, and commit its offsets?",
		r.event, p, 0, c.event, p, 1)
	if len(ct.Inconc) != 1 || ct.Inconc[0] != wantInc {
		t.Errorf("inconclusive %q, want %q", ct.Inconc, wantInc)
	}
	wantFinding := fmt.Sprintf("payment %s (event %s, order %s): credited 2 times for one payment (2 record(s) of it produced). credits read [%d %d]; record(s) partition %d offset %d, partition %d offset %d",
		r.Ref.PaymentID, r.event, r.Ref.OrderID, r.amount, r.amount, p, 0, p, 1)
	if len(ct.Findings) != 1 || ct.Findings[0].Kind != checker.KindDoubleCredit || ct.Findings[0].Message != wantFinding {
		t.Errorf("findings %+v, want one %s: %q", ct.Findings, checker.KindDoubleCredit, wantFinding)
	}
}

// TestRecordWordsAreTheBrokers: a broker that names its records (an SQS
// message id) is quoted in its own words, with no partition or offset.
func TestRecordWordsAreTheBrokers(t *testing.T) {
	f := &brokertest.Fake{}
	_, recs, log, ct := wordsRun(t, f, f)
	r := recs[0]
	if got, want := r.String(), r.event+"@m-1"; got != want {
		t.Errorf("record %q, want %q", got, want)
	}
	if want := fmt.Sprintf("  produced %s (key %s) at message id m-1\n  produced %s (key %s) at message id m-2\n", r.event, r.key, r.event, r.key); log != want {
		t.Errorf("log %q, want %q", log, want)
	}
	wantInc := fmt.Sprintf("group g never committed past [%s@m-1 %s@m-2] within 0s", r.event, r.event)
	if len(ct.Inconc) != 1 || ct.Inconc[0][:len(wantInc)] != wantInc {
		t.Errorf("inconclusive %q, want it to start %q", ct.Inconc, wantInc)
	}
	wantTail := "; record(s) message id m-1, message id m-2"
	if len(ct.Findings) != 1 || !bytes.HasSuffix([]byte(ct.Findings[0].Message), []byte(wantTail)) {
		t.Errorf("findings %+v, want one ending %q", ct.Findings, wantTail)
	}
}
