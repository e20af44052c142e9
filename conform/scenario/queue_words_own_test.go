package scenario

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
	"github.com/idemcheck/idemcheck/conform/config"
)

// queueWords are a broker's own words for its acknowledgement, as a
// broker whose acknowledgement deletes a message says them.
var queueWords = broker.Words{Ack: "DeleteMessage", AckOf: "the DeleteMessage of", Who: "the queue", Named: "queue q",
	Past: "drained of", Done: "drained", Evidence: "the queue held", Acks: "deletes each message", Hint: "delete each message it credited", Store: "queue q"}

// never is Acked that passed nothing, with the queue's counts as evidence.
type never struct{}

func (never) Passed(broker.Pos) bool { return false }
func (never) String() string         { return "1 visible" }

type neverAcked struct{ brokertest.Worded }

func (neverAcked) Acked(context.Context) (broker.Acked, error) { return never{}, nil }

// TestFindingsSayTheBrokersOwnWords: a broker with words of its own
// (broker.Worder) is quoted in them where a consumer group's words would
// name a group and offsets it does not have; its consumer has no group.
func TestFindingsSayTheBrokersOwnWords(t *testing.T) {
	f := &brokertest.Fake{}
	b := neverAcked{brokertest.Worded{Fake: f, Said: queueWords}}
	e := fakeQueueEnv(f)
	e.Queue.Broker, e.Queue.Group = b, ""
	e.Queue.Cfg.Env = config.ConsumerEnv{Brokers: "SQS_ENDPOINT", Topic: "SQS_QUEUE_URL"}
	e.Queue.Cfg.Key, e.Queue.Cfg.Message = "{{payment_id}}", `{"event_id": "{{event_id}}", "amount": {{amount}}}`
	ctx := context.Background()
	r := NewQRecord(ctx, e, &T{Env: e})
	if err := e.Queue.ProduceLog(ctx, e, false, r); err != nil {
		t.Fatal(err)
	}
	ct := &T{Env: e}
	e.Queue.RequireCommitted(ctx, ct, []*QRecord{r}, 0)
	want := fmt.Sprintf("queue q never drained of [%s] within 0s (the queue held 1 visible): does the service consume $SQS_QUEUE_URL, and delete each message it credited?", r)
	if len(ct.Inconc) != 1 || ct.Inconc[0] != want {
		t.Errorf("inconclusive %q, want %q", ct.Inconc, want)
	}
	e.Queue.Credits = noneCredited{}
	ct = &T{Env: e}
	ct.JudgeQueue(ctx, []*QRecord{r}, nil)
	wantLost := fmt.Sprintf("payment %s (event %s, order %s): its record is in queue q and the queue drained of it, but it was never credited. credits read []; record(s) message id m-1",
		r.Ref.PaymentID, r.event, r.Ref.OrderID)
	if len(ct.Findings) != 1 || ct.Findings[0].Kind != checker.KindLostEffect || ct.Findings[0].Message != wantLost {
		t.Errorf("findings %+v, want one %s: %q", ct.Findings, checker.KindLostEffect, wantLost)
	}
}

type noneCredited struct{}

func (noneCredited) Credits(context.Context, PaymentRef) ([]int64, error) { return nil, nil }
