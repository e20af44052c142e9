package sqs

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// elasticMQ starts the local provider's ElasticMQ (or the one
// IDEMCHECK_SQS_ENDPOINT names) for one test, stopped after it.
func elasticMQ(t *testing.T) string {
	t.Helper()
	st, err := services.Start(context.Background(), services.Options{SQS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	return st.SQS.Endpoint()
}

func runName(at time.Time) string { return fmt.Sprintf("q-1-0a1b2c3d-t%d", at.Unix()) }

func open(t *testing.T, endpoint string, kind broker.QueueKind, queue string) *SQS {
	t.Helper()
	b, err := Open(context.Background(), broker.Setup{Addrs: []string{endpoint}, Run: runName(time.Now()), QueueName: queue, Kind: kind, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	return b.(*SQS)
}

func counts(t *testing.T, q *SQS) Counts {
	t.Helper()
	a, err := q.Acked(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a.(Counts)
}

// names lists the endpoint's queues whose names start with prefix.
func names(t *testing.T, cl *sqs.Client, prefix string) []string {
	t.Helper()
	out, err := cl.ListQueues(context.Background(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, u := range out.QueueUrls {
		ns = append(ns, path.Base(u))
	}
	slices.Sort(ns)
	return ns
}

// TestSQSEvidenceFromTheServer: on a real ElasticMQ the broker's evidence
// is the queues' counts, read without receiving: two records sent are
// visible; one received and not deleted is in flight; one deleted is gone;
// the one never deleted moves to the dead-letter queue on the receive
// after max_receives (1 here), and only then does the queue count as
// drained (Passed, Ready). Close deletes both queues.
func TestSQSEvidenceFromTheServer(t *testing.T) {
	ep := elasticMQ(t)
	ctx := context.Background()
	q := open(t, ep, broker.QueueKind{DeadLetter: "idemcheck-{{run}}-dlq", MaxReceives: 1, Visibility: time.Second}, "idemcheck-{{run}}")
	closed := false
	defer func() {
		if !closed {
			q.Close()
		}
	}()
	if q.Caps() != broker.Visibility|broker.DeadLetter || q.DedupWindow() != 0 || q.DeadLetterAfter() != 2*time.Second {
		t.Fatalf("standard queue: caps %q window %s redrive %s", q.Caps(), q.DedupWindow(), q.DeadLetterAfter())
	}
	w := q.Where()
	if w.Addrs[0] != ep || !strings.HasSuffix(w.Queue, "/"+q.name) || !strings.HasSuffix(w.DeadLetter, "/"+q.name+"-dlq") || w.Group != "" {
		t.Fatalf("where %+v", w)
	}
	if r, err := q.Ready(ctx, 1); err != nil || !r.Ready {
		t.Fatalf("an empty queue: ready %+v %v", r, err)
	}
	recs := []*broker.Record{{Key: []byte("k1"), Value: []byte("one")}, {Key: []byte("k2"), Value: []byte("two")}}
	if err := q.Produce(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if recs[0].At.ID == "" || recs[0].At.ID == recs[1].At.ID {
		t.Fatalf("message ids %q %q", recs[0].At.ID, recs[1].At.ID)
	}
	if c := counts(t, q); c.Visible != 2 || c.InFlight != 0 || c.Dead != 0 || c.Passed(recs[0].At) {
		t.Fatalf("after the send: %s", c)
	}
	if r, _ := q.Ready(ctx, 1); r.Ready || r.Saw != counts(t, q).String() {
		t.Fatalf("a queue holding messages: ready %+v", r)
	}
	receive := func() []string {
		out, err := q.cl.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(w.Queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		var hs []string
		for _, m := range out.Messages {
			hs = append(hs, aws.ToString(m.ReceiptHandle))
		}
		return hs
	}
	hs := receive()
	if len(hs) != 2 {
		t.Fatalf("received %d, want 2", len(hs))
	}
	if _, err := q.cl.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(w.Queue), ReceiptHandle: aws.String(hs[0])}); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, q); c.Visible != 0 || c.InFlight != 1 || c.Dead != 0 || c.Passed(recs[0].At) {
		t.Fatalf("one deleted, one in flight: %s", c)
	}
	// Its visibility ends after 1 s; the receive after that is its second,
	// past max_receives 1: the queue moves it instead of delivering it.
	time.Sleep(1500 * time.Millisecond)
	if again := receive(); len(again) != 0 {
		t.Fatalf("a message past max_receives was delivered again (%d)", len(again))
	}
	if c := counts(t, q); c.Held() != 0 || c.Dead != 1 || !c.Passed(recs[0].At) || c.DeadLettered() != 1 {
		t.Fatalf("after the redrive: %s", c)
	}
	want := fmt.Sprintf("queue %s held 0 visible, 0 in flight, 0 delayed; dead-letter queue %s-dlq held 1", q.name, q.name)
	if s := counts(t, q).String(); s != want {
		t.Errorf("evidence %q, want %q", s, want)
	}
	q.Close()
	closed = true
	if left := names(t, newClient(ep), q.name); len(left) != 0 {
		t.Errorf("left after Close: %v", left)
	}
}

// TestSQSFIFODedupsByTheRecordsID: on a FIFO queue a copy with its
// original's dedup id is answered with the original's message id and not
// stored again; another id is stored. The window is SQS's 5 minutes.
func TestSQSFIFODedupsByTheRecordsID(t *testing.T) {
	ep := elasticMQ(t)
	q := open(t, ep, broker.QueueKind{FIFO: true, DeadLetter: "idemcheck-{{run}}-dlq.fifo", MaxReceives: 3, Visibility: 30 * time.Second}, "idemcheck-{{run}}.fifo")
	defer q.Close()
	if q.Caps() != Caps || q.DedupWindow() != 5*time.Minute {
		t.Fatalf("FIFO: caps %q window %s", q.Caps(), q.DedupWindow())
	}
	recs := []*broker.Record{{Key: []byte("pay-1"), Value: []byte("a"), DedupID: "evt-1"}, {Key: []byte("pay-1"), Value: []byte("a"), DedupID: "evt-1"},
		{Key: []byte("pay-2"), Value: []byte("b"), DedupID: "evt-2"}}
	if err := q.Produce(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if recs[1].At.ID != recs[0].At.ID || recs[2].At.ID == recs[0].At.ID {
		t.Errorf("ids %q %q %q: want the copy answered with its original's", recs[0].At.ID, recs[1].At.ID, recs[2].At.ID)
	}
	if c := counts(t, q); c.Visible != 2 {
		t.Errorf("%s, want 2 visible: the copy inside the window is dropped", c)
	}
}

// TestSQSSweepsStaleRuns: a queue a SIGKILLed run of this config left over
// an hour ago is deleted when the next run opens; a younger one is not.
func TestSQSSweepsStaleRuns(t *testing.T) {
	ep := elasticMQ(t)
	cl := newClient(ep)
	ctx := context.Background()
	stale, fresh := "idemcheck-"+runName(time.Now().Add(-2*time.Hour)), "idemcheck-"+runName(time.Now().Add(-time.Minute))
	for _, n := range []string{stale, stale + "-dlq", fresh} {
		if _, err := cl.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	b, err := Open(ctx, broker.Setup{Addrs: []string{ep}, Run: runName(time.Now()), QueueName: "idemcheck-{{run}}",
		Kind: broker.QueueKind{DeadLetter: "idemcheck-{{run}}-dlq", MaxReceives: 3, Visibility: time.Second}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if got := names(t, cl, "idemcheck-"); !slices.Equal(got, []string{fresh}) {
		t.Errorf("queues after the sweep and Close: %v, want only %s\n%s", got, fresh, log.String())
	}
	if !strings.Contains(log.String(), "sweeping queue "+stale+",") || !strings.Contains(log.String(), "sweeping queue "+stale+"-dlq,") {
		t.Errorf("the sweep did not say what it deleted:\n%s", log.String())
	}
}
