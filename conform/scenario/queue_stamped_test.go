package scenario

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestStampedPairDiffersOnlyByItsSendTime: under content-based dedup
// Q-dup's retry goes without a dedup id, its body its first's but for
// {{now_ns}}; the broker's new message id for it is said as a second
// message stored, and its first's id as the copy dropped.
func TestStampedPairDiffersOnlyByItsSendTime(t *testing.T) {
	e, f := dedupEnv(5 * time.Minute)
	e.Queue.Cfg.FIFO, e.Queue.Cfg.ContentDedup = true, true
	e.Queue.Cfg.Message = `{"event_id": "{{event_id}}", "amount": {{amount}}, "sent_at": {{now_ns}}}`
	if !e.Queue.ContentDedup() {
		t.Fatal("a FIFO queue with content_dedup does not say it dedups by content")
	}
	ctx := context.Background()
	r, c := e.Queue.StampedPair(ctx, e, &T{Env: e})
	if err := e.Queue.ProduceLog(ctx, e, false, r, c); err != nil {
		t.Fatal(err)
	}
	p := f.Produced()
	if len(p) != 2 || p[0].DedupID != "" || p[1].DedupID != "" || string(p[0].Key) != string(p[1].Key) {
		t.Fatalf("produced %+v, want two records of one key without a dedup id", p)
	}
	a, b := string(p[0].Value), string(p[1].Value)
	cut := strings.Index(a, `"sent_at": `)
	if a == b || cut < 0 || a[:cut] != b[:cut] || !strings.HasSuffix(a, "}") {
		t.Fatalf("bodies %q and %q, want them to differ only by sent_at", a, b)
	}
	said, stored := e.Queue.StampedWords(r, c)
	if !stored || !strings.Contains(said, "the broker stored it as a second message (message id m-2; the first's message id m-1)") || !strings.Contains(recordList([]*QRecord{c}), said) {
		t.Fatalf("StampedWords = %q, %v; record list %q", said, stored, recordList([]*QRecord{c}))
	}
	c.id = r.id
	if said, stored := e.Queue.StampedWords(r, c); stored || !strings.Contains(said, "with its first copy's message id m-1: it dropped it as a duplicate") {
		t.Fatalf("a retry answered with its first's id: StampedWords = %q, %v", said, stored)
	}
	e.Queue.Cfg.ContentDedup = false
	if e.Queue.ContentDedup() {
		t.Fatal("a FIFO queue without content_dedup says it dedups by content")
	}
}
