package core

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestKeyStoreRules: the rules every dialect shares, apart from any wire.
func TestKeyStoreRules(t *testing.T) {
	s := NewKeyStore()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const window = time.Hour
	e, res := s.claim("k", "POST /a", "x=1", t0, window)
	if res != ClaimFresh || !e.executing {
		t.Fatalf("first claim: %v executing=%v, want fresh and executing", res, e.executing)
	}
	if _, res := s.claim("k", "POST /a", "x=1", t0, window); res != ClaimInUse {
		t.Fatalf("repeat while executing: %v, want in use", res)
	}
	s.save(nil, e, 201, []byte("body"), "req_1", spill.Ref{}, false)
	got, res := s.claim("k", "POST /a", "x=1", t0.Add(window-time.Nanosecond), window)
	if res != ClaimReplay || got.status != 201 || string(got.mem.body) != "body" || got.mem.requestID != "req_1" {
		t.Fatalf("repeat inside the window: %v %+v, want the saved answer", res, got)
	}
	if got, res := s.claim("k", "POST /b", "x=1", t0, window); res != ClaimMismatch || got.mem.scope != "POST /a" {
		t.Fatalf("other scope: %v (first scope %q), want mismatch naming POST /a", res, got.mem.scope)
	}
	if _, res := s.claim("k", "POST /ax", "=1", t0, window); res != ClaimMismatch {
		t.Fatalf("scope and parameters run together: %v, want mismatch", res)
	}
	if _, res := s.claim("k", "POST /a", "x=2", t0, window); res != ClaimMismatch {
		t.Fatalf("other parameters: %v, want mismatch", res)
	}
	if _, res := s.claim("k", "POST /b", "y=1", t0.Add(window), window); res != ClaimFresh {
		t.Fatalf("after the window: %v, want a fresh request whatever its scope", res)
	}
	e2, _ := s.claim("v", "POST /a", "bad", t0, window)
	s.release("v", e2)
	if _, res := s.claim("v", "POST /a", "good", t0, window); res != ClaimFresh {
		t.Fatalf("after release: %v, want fresh (a refused request saves nothing)", res)
	}
	if (KeyRules{MaxLen: 3}).TooLong("abc") || !(KeyRules{MaxLen: 3}).TooLong("abcd") {
		t.Fatal("TooLong: want false at the limit and true past it")
	}
}
