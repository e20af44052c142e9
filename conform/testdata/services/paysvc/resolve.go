package main

import (
	"net/http"
	"strings"
	"time"
)

// resolve answers RESOLVE ("did the payment under this key happen?") for the
// caller's own key: the key's answer when it has one, processing while it
// runs, and void when the key is unused, in which case the key is voided so
// that a create that comes later (or races this) answers void and charges
// nothing. With --flaw resolve-unscoped it looks the key up among every
// caller's keys, as a store keyed by the client's key alone does.
func (s *server) resolve(w http.ResponseWriter, r *http.Request) {
	key := parseKey(r.Header.Get("Idempotency-Key"))
	if key == "" || len(key) > 255 {
		problem(w, 400, "idempotency_key_invalid", "Idempotency-Key must be 1 to 255 characters")
		return
	}
	scope := s.caller(r) + "\x00" + key
	now := time.Now()
	var rec *record
	var err error
	if s.flaw == "resolve-unscoped" {
		rec, err = s.store.findKey(key)
	}
	if err == nil && rec == nil {
		var claimed bool
		rec, claimed, err = s.store.claim(&record{Scope: scope, State: "void", ExpiresAt: now.Add(s.ttl)}, now)
		if err == nil && claimed {
			writeJSON(w, 200, map[string]any{"status": "void"})
			return
		}
	}
	if err != nil {
		problem(w, 500, "store_error", err.Error())
		return
	}
	switch rec.State {
	case "done":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Status)
		_, _ = w.Write([]byte(rec.Body))
	case "void":
		writeJSON(w, 200, map[string]any{"status": "void"})
	default:
		writeJSON(w, 202, map[string]any{"id": rec.PaymentID, "status": "processing"})
	}
}

// findKey is the record of key under any caller (the resolve-unscoped flaw).
func (t table) findKey(key string) *record {
	for scope, r := range t {
		if strings.HasSuffix(scope, "\x00"+key) {
			c := *r
			return &c
		}
	}
	return nil
}

func findKeyWith(d doer, key string) (rec *record, err error) {
	err = d.do(func(t table) error { rec = t.findKey(key); return nil })
	return rec, err
}

func (m *memStore) findKey(key string) (*record, error)  { return findKeyWith(m, key) }
func (f *fileStore) findKey(key string) (*record, error) { return findKeyWith(f, key) }
