package core

import (
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestKeyedOnDisk: a saved answer lives on disk, scope and request id with
// it; a replay and a mismatch read them back exactly, and a read that fails
// is a storage refusal, never an empty answer or a fresh run.
func TestKeyedOnDisk(t *testing.T) {
	st := &spill.Store{Owner: "keyed-test"}
	defer st.Close()
	store := NewKeyStore()
	k := Keyed{Rules: KeyRules{MaxLen: 255}, Window: time.Hour, Store: store, Lock: &sync.Mutex{}, Spill: st,
		Now: time.Now, Key: "key-1", Scope: "POST /v1/payment_intents", Fingerprint: "amount=1000"}
	runs := 0
	run := func() (int, []byte, string, bool) { runs++; return 402, []byte(`{"error":1}`), "req_first", true }
	if out := k.Do(run); out.Status != 402 || string(out.Body) != `{"error":1}` {
		t.Fatalf("first: %+v", out)
	}
	if rec, inMem := store.m["key-1"]; inMem || store.saved.Len() != 1 {
		t.Fatalf("saved record keeps %+v in memory, %d keys indexed; want all on disk, its hash indexed", rec, store.saved.Len())
	}
	out := k.Do(run)
	if out.Replay == nil || out.Replay.Status != 402 || string(out.Replay.Body) != `{"error":1}` || out.Replay.RequestID != "req_first" {
		t.Fatalf("replay: %+v %+v, want 402, the body and req_first", out, out.Replay)
	}
	other := k
	other.Scope = "POST /v1/refunds"
	if out := other.Do(run); out.Refusal == nil || out.Refusal.Kind != RefuseKeyMismatch || out.Refusal.FirstScope != "POST /v1/payment_intents" {
		t.Fatalf("mismatch: %+v, want one naming the first scope", out.Refusal)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, kk := range []Keyed{k, other} {
		if out := kk.Do(run); out.Refusal == nil || out.Refusal.Kind != RefuseStorage || out.Replay != nil {
			t.Fatalf("after the disk is gone (%s): %+v, want a storage refusal", kk.Scope, out)
		}
	}
	if runs != 1 {
		t.Fatalf("the request ran %d times, want 1", runs)
	}
}

// TestKeyedInMemory: without a disk, the same answers from memory.
func TestKeyedInMemory(t *testing.T) {
	k := Keyed{Rules: KeyRules{MaxLen: 255}, Window: time.Hour, Store: NewKeyStore(), Lock: &sync.Mutex{},
		Now: time.Now, Key: "k", Scope: "POST /a", Fingerprint: "x=1"}
	run := func() (int, []byte, string, bool) { return 200, []byte("ok"), "req_1", true }
	k.Do(run)
	out := k.Do(run)
	if out.Replay == nil || out.Replay.Status != 200 || string(out.Replay.Body) != "ok" || out.Replay.RequestID != "req_1" {
		t.Fatalf("replay: %+v", out.Replay)
	}
	k.Scope = "POST /b"
	if out := k.Do(run); out.Refusal == nil || out.Refusal.Kind != RefuseKeyMismatch || out.Refusal.FirstScope != "POST /a" {
		t.Fatalf("mismatch: %+v", out.Refusal)
	}
}

func TestKeyBlobRoundTrip(t *testing.T) {
	for _, c := range []struct{ scope, id, body string }{{"POST /a", "req_1", `{"x":1}`}, {"", "", ""}, {"s", "", "b"}} {
		scope, id, body, err := parseKeyBlob(keyBlob(c.scope, c.id, []byte(c.body)))
		if err != nil || scope != c.scope || id != c.id || string(body) != c.body {
			t.Errorf("%+v: got %q %q %q %v", c, scope, id, body, err)
		}
	}
	if _, _, _, err := parseKeyBlob([]byte{9, 'a'}); err == nil {
		t.Error("a truncated blob parsed")
	}
}
