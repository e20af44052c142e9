package sqs

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// TestSQSWordsNameNoGroupOrOffset: a record's place is its message id and
// the evidence is the queues' counts; Describe says the queue's kind, its
// dead-letter queue and the redrive policy's count.
func TestSQSWordsNameNoGroupOrOffset(t *testing.T) {
	q := &SQS{endpoint: "http://127.0.0.1:9324", name: "idemcheck-r", dlName: "idemcheck-r-dlq",
		kind: broker.QueueKind{FIFO: true, ContentDedup: true, MaxReceives: 3, Visibility: 2 * time.Second}}
	if p := q.Place(broker.Pos{ID: "0f3a9c1e-77aa-4d3e-9b2f-5e1f2a3b4c5d"}); p.Long != "message id 0f3a9c1e-77aa-4d3e-9b2f-5e1f2a3b4c5d" || p.Short != "0f3a9c1e" {
		t.Errorf("place %+v", p)
	}
	if got, want := q.Describe(), "SQS http://127.0.0.1:9324, queue idemcheck-r (FIFO, a 5m0s dedup window, content-based dedup, visibility timeout 2s), dead-letter queue idemcheck-r-dlq after 3 receive(s)"; got != want {
		t.Errorf("describe %q, want %q", got, want)
	}
	if q.DeadLetterAfter() != 8*time.Second {
		t.Errorf("redrive after %s, want 4 × 2s", q.DeadLetterAfter())
	}
	c := Counts{Queue: "idemcheck-r", DeadLetter: "idemcheck-r-dlq", Visible: 1, InFlight: 2, Delayed: 3, Dead: 4}
	if got, want := c.String(), "queue idemcheck-r held 1 visible, 2 in flight, 3 delayed; dead-letter queue idemcheck-r-dlq held 4"; got != want {
		t.Errorf("counts %q, want %q", got, want)
	}
	if c.Passed(broker.Pos{}) || !(Counts{Dead: 4}).Passed(broker.Pos{}) {
		t.Errorf("passed: a queue holding messages has not passed them; an empty one has, whatever its dead-letter queue holds")
	}
	if w := q.Words(); w.Named != "queue idemcheck-r" || w.Ack != "DeleteMessage" {
		t.Errorf("words %+v", w)
	}
}
