// Command paysvc is a tiny payment service used as a test target for
// `idemcheck run`. With --flaw none it is correct: a durable key store (a JSON
// file, flock + fsync), a canonical fingerprint, keys scoped to the caller, a
// payment id and PSP key derived from the scope, and an unknown PSP outcome
// kept unknown. Each --flaw switches one of those guards off.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"

	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

var flaws = map[string]string{
	"none":                "correct",
	"no-key":              "ignores the idempotency key",
	"check-then-insert":   "checks the key store, then inserts, without atomicity",
	"racy-forward-key":    "checks the key store, then inserts, without atomicity, and forwards the client's key to the PSP (whose idempotency keeps one charge)",
	"raw-fingerprint":     "fingerprints the raw body bytes",
	"unscoped":            "keys not scoped to the caller",
	"memory-store":        "key store in memory, lost on restart",
	"short-ttl":           "key records expire after --ttl regardless of the documented window",
	"protocol-only":       "safe, but waits and answers 200 instead of 409, and 417 instead of 422",
	"mismatch-accepted":   "no fingerprint check: replays the first answer for a different body",
	"fingerprint-omits":   "fingerprints the payment fields but leaves out the one --omit names",
	"resolve-unscoped":    "RESOLVE looks the key up among every caller's keys (the create path is scoped)",
	"search-once":         "after a PSP 5xx, searches the PSP once and takes \"not found\" for \"not charged\" (a final failure)",
	"reexec-after-5xx":    "treats a PSP 5xx as a definite failure, releases the key, charges again on retry",
	"new-psp-key":         "mints a new PSP idempotency key per attempt",
	"fresh-refund-key":    "refunds with a new PSP key per call and keeps no refund state",
	"no-layer":            "no key store of its own: forwards the client's key to the PSP and answers what the PSP answered (no ledger row)",
	"forward-key":         "key store in memory; forwards the client's key to the PSP and writes a ledger row on each execution",
	"fee":                 "adds a fee of 30 to the amount it charges (the order id goes in the PSP description)",
	"store-5xx":           "stores a PSP 5xx as the key's answer and replays it forever",
	"sweeper":             "a background sweeper charges each payment again, with a new key, --sweep-after later",
	"late-store":          "sends the completed answer, then stores it --store-after later (a retry in between hears 409)",
	"outbox-range-delete": "with --outbox-dsn: the outbox relay deletes every row created up to its read, not the rows it read (a row committed in between is deleted unsent)",
}

type server struct {
	flaw   string
	omit   string // the field --flaw fingerprint-omits leaves out
	psp    string
	pspKey string
	adyen  bool // --psp adyen
	store  store
	ttl    time.Duration
	lease  time.Duration
	hold   time.Duration
	me     string
	client *http.Client
	// charged counts PSP charges answered as succeeded.
	charged atomic.Int64
	// keyLen, when set, is the only key length accepted (a UUID-only
	// middleware answers 500 to anything else).
	keyLen    int
	dupWait   bool
	fpBody    bool
	mmStatus  int
	sweep     time.Duration
	storeLag  time.Duration
	ledgerLog string
	noLedger  bool
	outbox    *outbox // --outbox-dsn (outbox.go)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:"+os.Getenv("PORT"), "listen address")
	flaw := flag.String("flaw", "none", "guard to switch off")
	dir := flag.String("state-dir", os.Getenv("STATE_DIR"), "directory of the key store file")
	ttl := flag.Duration("ttl", time.Hour, "key record window")
	lease := flag.Duration("lease", 2*time.Second, "in-progress lease before a takeover")
	hold := flag.Duration("hold", 150*time.Millisecond, "work before the PSP call (widens race windows)")
	keyLen := flag.Int("key-length", 0, "accept only keys of this length, answer 500 otherwise (0: any)")
	dup := flag.String("dup", "409", "a duplicate while the first runs: 409, or wait (block on the key and replay)")
	fp := flag.String("fingerprint", "meaning", "fingerprint over: meaning (the payment fields) or body (the whole parsed body)")
	mm := flag.Int("mismatch-status", 422, "status of a mismatch answer")
	sweep := flag.Duration("sweep-after", 20*time.Second, "with --flaw sweeper: when the sweeper charges again")
	storeLag := flag.Duration("store-after", 300*time.Millisecond, "with --flaw late-store: how long after its answer the completed record is stored (longer than the run with a longer --lease: never)")
	noLedger := flag.Bool("no-ledger", false, "never write the ledger row of a charge (GET /ledger still answers)")
	hookFlaw := flag.String("hook-flaw", "none", "webhook handler guard to switch off (webhook.go)")
	pspName := flag.String("psp", "stripe", "the PSP it calls and hears from: stripe, or adyen (adyen.go)")
	omit := flag.String("omit", "currency", "with --flaw fingerprint-omits: the field left out (order_id, amount, currency, payment_method)")
	outboxDSN := flag.String("outbox-dsn", "", "write ledger rows through an outbox table in this Postgres (PG_ADDR in it stands for $PG_ADDR), drained by a relay (outbox.go)")
	creditsShape := flag.String("credits-shape", "data", `GET /credits answers {"data": [...]}, or with "entries" {"count": n, "entries": [...]}`)
	_ = flag.String("tag", "", "ignored: lets a test find this process")
	flag.Parse()
	if *pspName != "stripe" && *pspName != "adyen" {
		log.Fatalf("unknown --psp %q (stripe, adyen)", *pspName)
	}
	if _, ok := flaws[*flaw]; !ok {
		log.Fatalf("unknown --flaw %q", *flaw)
	}
	s := &server{flaw: *flaw, psp: os.Getenv("PSP_URL"), pspKey: os.Getenv("PSP_KEY"), ttl: *ttl, lease: *lease, hold: *hold,
		me: randHex(6), client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		keyLen: *keyLen, dupWait: *dup == "wait", fpBody: *fp == "body", mmStatus: *mm, sweep: *sweep, storeLag: *storeLag, omit: *omit}
	s.adyen = *pspName == "adyen"
	if s.psp == "" || s.pspKey == "" {
		log.Fatal("PSP_URL and PSP_KEY must be set")
	}
	if *dir != "" {
		s.ledgerLog = filepath.Join(*dir, "ledger.jsonl")
	}
	s.noLedger = *noLedger
	if *flaw == "outbox-range-delete" && *outboxDSN == "" {
		log.Fatal("--flaw outbox-range-delete needs --outbox-dsn")
	}
	if *outboxDSN != "" {
		if s.ledgerLog == "" {
			log.Fatal("--outbox-dsn needs --state-dir or STATE_DIR (the ledger it relays to)")
		}
		s.outbox = openOutbox(s, *outboxDSN, *flaw == "outbox-range-delete")
		go s.outbox.relay()
	}
	if *flaw == "memory-store" || *flaw == "forward-key" {
		s.store = newMemStore()
	} else {
		if *dir == "" {
			log.Fatal("--state-dir or STATE_DIR is required")
		}
		s.store = &fileStore{path: filepath.Join(*dir, "keys.json")}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	mux.HandleFunc("POST /payments", s.create)
	mux.HandleFunc("GET /payments", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]any{"data": []any{}}) })
	mux.HandleFunc("POST /payments/resolve", s.resolve)
	mux.HandleFunc("GET /payments/{id}", s.lookup)
	mux.HandleFunc("POST /payments/{id}/refund", s.refund)
	mux.HandleFunc("GET /ledger", s.ledger)
	if *dir != "" {
		h := newHooks(s, *hookFlaw, *dir)
		h.shape = *creditsShape
		if s.adyen {
			mux.HandleFunc("POST /webhooks/psp", h.serveAdyen)
		} else {
			mux.HandleFunc("POST /webhooks/psp", h.serve)
		}
		mux.HandleFunc("GET /credits", h.credits)
	}
	// The service's own count of charges the PSP confirmed, for idemcheck's
	// http_counter effects mode (this process's lifetime only).
	mux.HandleFunc("GET /debug/charges", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"count": s.charged.Load()})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	log.Printf("paysvc flaw=%s listening on %s", *flaw, ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, code, title string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "https://idemcheck.dev/problems/" + code, "title": title, "status": status, "code": code})
}

type meaning struct {
	OrderID       string      `json:"order_id"`
	Amount        json.Number `json:"amount"`
	Currency      string      `json:"currency"`
	PaymentMethod string      `json:"payment_method"`
}

func (m meaning) fingerprint() string {
	h := sha256.Sum256([]byte(strings.Join([]string{m.OrderID, m.Amount.String(), strings.ToUpper(m.Currency), m.PaymentMethod}, "\x00")))
	return hex.EncodeToString(h[:])
}

// without blanks one field, as a fingerprint that forgot it would.
func (m meaning) without(field string) meaning {
	switch field {
	case "order_id":
		m.OrderID = ""
	case "amount":
		m.Amount = ""
	case "currency":
		m.Currency = ""
	case "payment_method":
		m.PaymentMethod = ""
	}
	return m
}

func (s *server) lookup(w http.ResponseWriter, r *http.Request) {
	rec, err := s.store.find(r.PathValue("id"))
	if err != nil {
		problem(w, 500, "store_error", err.Error())
		return
	}
	if rec == nil {
		problem(w, 404, "not_found", "no such payment")
		return
	}
	writeJSON(w, 200, map[string]any{"id": rec.PaymentID, "status": rec.status()})
}

func (s *server) caller(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// parseKey accepts a bare key or an RFC 8941 string ("...").
func parseKey(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	caller := s.caller(r)
	if caller == "" {
		problem(w, 401, "unauthenticated", "missing bearer token")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		problem(w, 400, "bad_body", err.Error())
		return
	}
	var m meaning
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		problem(w, 400, "bad_body", "body is not JSON: "+err.Error())
		return
	}
	amount, err := m.Amount.Int64()
	if err != nil || amount <= 0 {
		problem(w, 400, "invalid_amount", "amount must be a positive integer")
		return
	}
	if s.flaw == "no-key" {
		s.charge(w, &record{PaymentID: "pay_" + randHex(6), Amount: amount, Currency: m.Currency, PaymentMethod: m.PaymentMethod})
		return
	}
	hv, present := r.Header["Idempotency-Key"]
	if !present {
		problem(w, 400, "idempotency_key_missing", "Idempotency-Key header is required")
		return
	}
	key := parseKey(strings.Join(hv, ","))
	if s.keyLen > 0 && len(key) != s.keyLen {
		// What a UUID-only middleware does: a parse failure is a 500.
		problem(w, 500, "internal_error", "invalid UUID length: "+strconv.Itoa(len(key)))
		return
	}
	if key == "" || len(key) > 255 {
		problem(w, 400, "idempotency_key_invalid", "Idempotency-Key must be 1 to 255 characters")
		return
	}
	if s.flaw == "no-layer" {
		s.noLayer(w, caller, key, amount, m)
		return
	}
	scope := caller + "\x00" + key
	if s.flaw == "unscoped" {
		scope = key
	}
	fp := m.fingerprint()
	if s.flaw == "fingerprint-omits" {
		fp = m.without(s.omit).fingerprint()
	}
	if s.fpBody {
		fp = bodyFingerprint(raw)
	}
	if s.flaw == "raw-fingerprint" {
		h := sha256.Sum256(raw)
		fp = hex.EncodeToString(h[:])
	}
	s.claimAndRun(w, r.Context(), scope, fp, amount, m, key)
}

// bodyFingerprint hashes the whole parsed body in a canonical form (Go
// marshals map keys sorted): member order and spacing do not matter, every
// field does.
func bodyFingerprint(raw []byte) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	_ = dec.Decode(&v)
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (s *server) derivedID(scope string) string {
	h := sha256.Sum256([]byte(scope))
	return "pay_" + hex.EncodeToString(h[:6])
}

func (s *server) randomIDs() bool {
	switch s.flaw {
	case "check-then-insert", "memory-store", "short-ttl", "reexec-after-5xx":
		return true
	}
	return false
}

func (s *server) claimAndRun(w http.ResponseWriter, ctx context.Context, scope, fp string, amount int64, m meaning, key string) {
	for {
		now := time.Now()
		fresh := &record{Scope: scope, Fingerprint: fp, State: "in_progress", Owner: s.me, LeaseUntil: now.Add(s.lease),
			Amount: amount, Currency: m.Currency, PaymentMethod: m.PaymentMethod, ExpiresAt: now.Add(s.ttl)}
		fresh.PaymentID = s.derivedID(scope)
		if s.randomIDs() {
			fresh.PaymentID = "pay_" + randHex(6)
		}
		fresh.PSPKey = fresh.PaymentID + ":charge"
		fresh.OrderID = m.OrderID
		if s.flaw == "forward-key" || s.flaw == "racy-forward-key" {
			fresh.PSPKey = key
		}
		var rec *record
		var claimed bool
		var err error
		if s.flaw == "check-then-insert" || s.flaw == "racy-forward-key" {
			rec, claimed, err = s.checkThenInsert(fresh, now)
		} else {
			rec, claimed, err = s.store.claim(fresh, now)
		}
		if err != nil {
			problem(w, 500, "store_error", err.Error())
			return
		}
		if claimed {
			s.charge(w, rec)
			return
		}
		if rec.State == "void" {
			// RESOLVE voided the key before this create: it never charges.
			writeJSON(w, 200, map[string]any{"status": "void"})
			return
		}
		if rec.Fingerprint != fp && s.flaw != "mismatch-accepted" {
			status := s.mmStatus
			if s.flaw == "protocol-only" {
				status = 417
			}
			problem(w, status, "idempotency_key_reused", "this key was used with a different request")
			return
		}
		switch rec.State {
		case "done":
			w.Header().Set("Idempotent-Replayed", "true")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Status)
			_, _ = w.Write([]byte(rec.Body))
			return
		case "in_progress", "unknown":
			if rec.State == "unknown" || now.After(rec.LeaseUntil) {
				// The outcome is unknown or the owner is gone: take over and
				// ask the PSP again under the same key.
				if took, err := s.store.takeover(rec.Scope, s.me, now.Add(s.lease), rec.Owner); err != nil {
					problem(w, 500, "store_error", err.Error())
					return
				} else if took != nil {
					s.charge(w, took)
					return
				}
				continue
			}
			if s.flaw == "protocol-only" || s.dupWait {
				select {
				case <-ctx.Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			w.Header().Set("Retry-After", "1")
			problem(w, 409, "idempotency_key_in_use", "a request with this key is in progress")
			return
		}
		problem(w, 500, "store_error", "record in unknown state "+rec.State)
		return
	}
}

func (s *server) checkThenInsert(fresh *record, now time.Time) (*record, bool, error) {
	rec, err := s.store.get(fresh.Scope, now)
	if err != nil || rec != nil {
		return rec, false, err
	}
	time.Sleep(s.hold) // the gap a concurrent copy falls into
	return fresh, true, s.store.put(fresh)
}
