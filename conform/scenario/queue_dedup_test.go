package scenario

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
)

// dedupEnv is fakeQueueEnv on a broker with a dedup window of w that
// names its records (0: one with none, speaking Kafka's words), with a
// record template.
func dedupEnv(w time.Duration) (*Env, *brokertest.Fake) {
	f := &brokertest.Fake{C: broker.Partitions | broker.Rebalance | broker.Members}
	var b broker.Broker = kafkaWords{f}
	if w > 0 {
		f.C = broker.DedupWindow
		b = brokertest.Dedup{Fake: f, Window: w}
	}
	e := fakeQueueEnv(f)
	e.Queue.Broker, e.Queue.Caps = b, f.C
	e.Queue.Cfg.Broker = "kafka"
	e.Queue.Cfg.Key, e.Queue.Cfg.Message = "{{payment_id}}", `{"event_id": "{{event_id}}", "amount": {{amount}}}`
	return e, f
}

// TestDupWithoutAWindowCarriesNoDedupID: on a broker with no dedup window
// (Kafka) a copy is the same key and body with no dedup id, Q-dup says so,
// and a finding's record list is today's.
func TestDupWithoutAWindowCarriesNoDedupID(t *testing.T) {
	e, f := dedupEnv(0)
	ctx := context.Background()
	r := NewQRecord(ctx, e, &T{Env: e})
	c := CopyOf(r)
	if err := e.Queue.ProduceLog(ctx, e, false, r, c); err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Produced() {
		if p.DedupID != "" {
			t.Fatalf("a record on a broker with no window carries dedup id %q", p.DedupID)
		}
	}
	if got, want := e.Queue.DupWords(r, c), "the same key and body re-produced without a dedup id (broker kafka has no dedup window)"; got != want {
		t.Fatalf("DupWords = %q, want %q", got, want)
	}
	if got, want := recordList([]*QRecord{r, c}), fmt.Sprintf("partition %d offset 0, partition %d offset 1", r.Partition, r.Partition); got != want {
		t.Fatalf("record list %q, want %q", got, want)
	}
}

// TestDupWithAWindowSaysWhereTheCopyFell: on a broker with a dedup window
// a copy carries its original's dedup id (another payment and each poison
// their own), and Q-dup says whether it fell inside the window, outside
// it, or at its edge, only as far as the produce times prove.
func TestDupWithAWindowSaysWhereTheCopyFell(t *testing.T) {
	w := 5 * time.Minute
	e, f := dedupEnv(w)
	ctx := context.Background()
	r, other := NewQRecord(ctx, e, &T{Env: e}), NewQRecord(ctx, e, &T{Env: e})
	c := CopyOf(r)
	p1, p2 := PoisonRecord(e, 0), PoisonRecord(e, 0)
	if err := e.Queue.ProduceLog(ctx, e, false, r, c, other, p1, p2); err != nil {
		t.Fatal(err)
	}
	ps := f.Produced()
	id := "idemcheck-" + r.event
	if ps[0].DedupID != id || ps[1].DedupID != id {
		t.Fatalf("the record and its copy carry dedup ids %q and %q, want %q both", ps[0].DedupID, ps[1].DedupID, id)
	}
	ids := map[string]bool{id: true}
	for _, p := range ps[2:] {
		if p.DedupID == "" || ids[p.DedupID] {
			t.Fatalf("record %q carries dedup id %q, want one of its own", p.Value, p.DedupID)
		}
		ids[p.DedupID] = true
	}
	inside := e.Queue.DupWords(r, c)
	if !strings.HasPrefix(inside, "the same key, body and dedup id "+id+" re-produced ") || !strings.HasSuffix(inside, "after the first, inside the broker's 5m0s dedup window: the broker is to drop it") {
		t.Fatalf("copy in a row: %q", inside)
	}
	if got := recordList([]*QRecord{c}); got != "message id m-2 ("+inside+")" {
		t.Fatalf("a finding's record list %q does not say where the copy fell", got)
	}
	for _, tc := range []struct {
		sent, acked time.Duration // after the original's acknowledgement
		want        string
	}{
		{w, w + 10*time.Millisecond, "re-produced 5m0s after the first, outside the broker's 5m0s dedup window: the broker delivers it again"},
		{w - time.Millisecond, w + 10*time.Millisecond, "re-produced 4m59.999s after the first, at the edge of the broker's 5m0s dedup window: whether the broker dropped it is unknown"},
	} {
		late := CopyOf(r)
		late.sent, late.acked = r.acked.Add(tc.sent), r.acked.Add(tc.acked)
		if got := e.Queue.DupWords(r, late); got != "the same key, body and dedup id "+id+" "+tc.want {
			t.Errorf("late copy sent %s after: %q, want ... %q", tc.sent, got, tc.want)
		}
	}
}

// TestOutsideDedupWindowWaitsOrSaysItCannot: Q-dup waits out the window
// before its late copy, when the run may wait that long; otherwise the
// check is inconclusive, since only the broker's dedup would be tested.
func TestOutsideDedupWindowWaitsOrSaysItCannot(t *testing.T) {
	ctx := context.Background()
	e, _ := dedupEnv(5 * time.Minute)
	e.MaxWait = time.Minute
	r := NewQRecord(ctx, e, &T{Env: e})
	r.acked = time.Now()
	ct := &T{Env: e}
	if e.Queue.OutsideDedupWindow(ctx, e, ct, r) || len(ct.Inconc) != 1 ||
		ct.Inconc[0] != "a copy reached the consumer past the broker's dedup window: the window (5m0s) is longer than the run may wait (1m0s): only the broker's dedup was exercised, not the consumer's" {
		t.Fatalf("a window past MaxWait: %q", ct.Inconc)
	}
	e, _ = dedupEnv(50 * time.Millisecond)
	e.MaxWait = 5 * time.Second
	r = NewQRecord(ctx, e, &T{Env: e})
	r.acked = time.Now()
	ct = &T{Env: e}
	if !e.Queue.OutsideDedupWindow(ctx, e, ct, r) || len(ct.Inconc) != 0 {
		t.Fatalf("a short window: %q", ct.Inconc)
	}
	if since := time.Since(r.acked); since < 50*time.Millisecond+DedupMargin {
		t.Fatalf("returned %s after the acknowledgement, before the window and its margin passed", since)
	}
	if w := e.Waits(); len(w) != 1 || w[0].Reason != WaitWindow {
		t.Fatalf("the wait is not reported as a window wait: %v", w)
	}
	e, _ = dedupEnv(0)
	if !e.Queue.OutsideDedupWindow(ctx, e, &T{Env: e}, r) {
		t.Fatal("no window: nothing to wait for")
	}
}
