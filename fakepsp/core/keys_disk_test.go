package core

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestKeysSharingAHash: with every key's hash forced equal, each key still
// replays its own answer (the record read back names its key), the second
// saved key stays in memory rather than take the first's place, both
// expire as keys do, and a record that cannot be read back refuses even a
// key never seen, for it might be that record's: never a run.
func TestKeysSharingAHash(t *testing.T) {
	st := &spill.Store{Owner: "keys-collide-test"}
	defer st.Close()
	store := NewKeyStore()
	store.hash = func(string) uint64 { return 7 }
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	keyed := func(key, scope string) Keyed {
		return Keyed{Rules: KeyRules{MaxLen: 255}, Window: time.Hour, Store: store, Lock: &sync.Mutex{}, Spill: st,
			Now: func() time.Time { return now }, Key: key, Scope: scope, Fingerprint: "amount=1000"}
	}
	runs := map[string]int{}
	run := func(key string, status int) func() (int, []byte, string, bool) {
		return func() (int, []byte, string, bool) {
			runs[key]++
			return status, []byte("body of " + key), "req_" + key, true
		}
	}
	a, b := keyed("key-a", "POST /a"), keyed("key-b", "POST /b")
	if out := a.Do(run("key-a", 201)); out.Status != 201 {
		t.Fatalf("key-a first: %+v", out)
	}
	if out := b.Do(run("key-b", 402)); out.Status != 402 || out.Replay != nil {
		t.Fatalf("key-b first: %+v, want its own run, not key-a's answer", out)
	}
	if _, inMem := store.m["key-b"]; !inMem || store.saved.Len() != 1 {
		t.Fatalf("key-b in memory %v, %d keys indexed; want key-b kept in memory beside key-a's index entry", inMem, store.saved.Len())
	}
	for _, c := range []struct {
		k      Keyed
		status int
	}{{a, 201}, {b, 402}} {
		out := c.k.Do(run(c.k.Key, 500))
		if r := out.Replay; r == nil || r.Status != c.status || string(r.Body) != "body of "+c.k.Key || r.RequestID != "req_"+c.k.Key {
			t.Fatalf("%s replay: %+v %+v, want its own saved answer", c.k.Key, out, out.Replay)
		}
		other := c.k
		other.Scope = "POST /other"
		if out := other.Do(run(c.k.Key, 500)); out.Refusal == nil || out.Refusal.Kind != RefuseKeyMismatch || out.Refusal.FirstScope != c.k.Scope {
			t.Fatalf("%s under another scope: %+v, want a mismatch naming %s", c.k.Key, out.Refusal, c.k.Scope)
		}
	}
	now = t0.Add(time.Hour)
	for _, k := range []Keyed{a, b} {
		if out := k.Do(run(k.Key, 200)); out.Status != 200 || out.Replay != nil {
			t.Fatalf("%s after the window: %+v, want a new request", k.Key, out)
		}
	}
	if runs["key-a"] != 2 || runs["key-b"] != 2 {
		t.Fatalf("runs %v, want 2 each (first and after the window)", runs)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Keyed{a, keyed("key-never-seen", "POST /a")} {
		if out := k.Do(run(k.Key, 200)); out.Refusal == nil || out.Refusal.Kind != RefuseStorage {
			t.Fatalf("%s with the disk gone: %+v, want a storage refusal", k.Key, out)
		}
	}
	if runs["key-a"] != 2 || runs["key-never-seen"] != 0 {
		t.Fatalf("runs %v after the disk went: want none", runs)
	}
}

func TestKeyRecordRoundTrip(t *testing.T) {
	fp := fingerprint("POST /a", "x=1")
	for _, c := range []struct {
		key, scope, id, body string
		created              time.Duration
		status               int
	}{{"k1", "POST /a", "req_1", `{"x":1}`, 90 * time.Minute, 201}, {"", "", "", "", 0, 0}, {"k", "s", "", "b", -time.Second, 599}} {
		b := keyRecordBlob(c.key, fp, c.created, c.status, c.scope, c.id, []byte(c.body))
		e, key, err := parseKeyRecord(b)
		if err != nil || key != c.key || e.fp != fp || e.created != c.created || int(e.status) != c.status || e.executing ||
			e.mem.scope != c.scope || e.mem.requestID != c.id || !bytes.Equal(e.mem.body, []byte(c.body)) {
			t.Errorf("%+v: got %q %+v %+v %v", c, key, e, e.mem, err)
		}
	}
	whole := keyRecordBlob("key", fp, time.Minute, 200, "POST /a", "req_1", nil)
	for n := range len(whole) - len("req_1") {
		if _, _, err := parseKeyRecord(whole[:n]); err == nil {
			t.Errorf("a record cut to %d of %d bytes parsed", n, len(whole))
		}
	}
}

// TestKeyIndexUnreadableRefuses: with the index of saved keys on disk
// unreadable (its store closed), a key it may hold cannot be told from a
// new one: the claim is an error and the request never runs, for a fresh
// claim on a saved key would charge twice. Without a disk the keys stay in
// memory, with no index.
func TestKeyIndexUnreadableRefuses(t *testing.T) {
	st := &spill.Store{Owner: "keys-index-test"}
	defer st.Close()
	store := NewKeyStore()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := 0
	run := func() (int, []byte, string, bool) { runs++; return 200, []byte("ok"), "req_1", true }
	keyed := func(key string) Keyed {
		return Keyed{Rules: KeyRules{MaxLen: 255}, Window: time.Hour, Store: store, Lock: &sync.Mutex{}, Spill: st,
			Now: func() time.Time { return t0 }, Key: key, Scope: "POST /a", Fingerprint: "x=1"}
	}
	for _, key := range []string{"key-1", "key-2", "key-3"} {
		keyed(key).Do(run)
	}
	if len(store.m) != 0 || store.saved.Len() != 3 {
		t.Fatalf("%d keys in memory, %d indexed; want all 3 indexed on disk", len(store.m), store.saved.Len())
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"key-2", "key-never-seen"} {
		if e, res, err := store.claimOn(st, key, "POST /a", "x=1", t0, time.Hour); err == nil {
			t.Fatalf("claim of %s with the index unreadable: %v %+v, want an error", key, res, e)
		}
		if out := keyed(key).Do(run); out.Refusal == nil || out.Refusal.Kind != RefuseStorage {
			t.Fatalf("%s with the index unreadable: %+v, want a storage refusal", key, out)
		}
	}
	if runs != 3 {
		t.Fatalf("the requests ran %d times, want 3 (none once the index was gone)", runs)
	}

	mem := NewKeyStore()
	k := keyed("key-1")
	k.Store, k.Spill = mem, nil
	k.Do(run)
	if _, inMem := mem.m["key-1"]; !inMem || mem.saved != nil {
		t.Fatalf("without a disk: key in memory %v, index %v; want the key in memory and no index", inMem, mem.saved)
	}
}
