// Command stripesvc is a payment service that calls its PSP through
// stripe-go the way many do: every business attempt (each client request
// that finds no finished payment) creates a PaymentIntent with a new
// idempotency key, which stripe-go draws itself and reuses only across its
// own automatic retries. Losing one PSP reply is absorbed by those retries;
// losing every reply for that key is not, and the client's retry charges
// again: the flaw scenario A1 must catch.
//
// With --stable-keys every PSP call instead carries a key derived from the
// client's own (caller, idempotency key, step), so a client's retry replays
// at the PSP. A create whose body says "capture_method": "manual" only
// authorizes; POST /payments/{id}/capture and /refund follow (capture.go).
// --flaw capture-fresh-key leaves the capture to stripe-go's own key per
// attempt even with --stable-keys: a capture whose reply is lost is retried
// under a new key, and Stripe refuses it (already captured), so the client
// is told the capture failed although the money moved.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stripe/stripe-go/v85"
)

type payment struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Amount int64  `json:"amount"`
}

type server struct {
	sc         *stripe.Client
	stableKeys bool
	flaw       string
	mu         sync.Mutex
	done       map[string]payment // by step, caller and key
}

func main() {
	stable := flag.Bool("stable-keys", false, "derive every PSP idempotency key from the client's caller and key")
	flaw := flag.String("flaw", "none", "none or capture-fresh-key (the capture draws a new PSP key per attempt)")
	flag.Parse()
	if *flaw != "none" && *flaw != "capture-fresh-key" {
		log.Fatalf("--flaw %q: want none or capture-fresh-key", *flaw)
	}
	psp, key := os.Getenv("PSP_URL"), os.Getenv("PSP_KEY")
	if psp == "" || key == "" {
		log.Fatal("PSP_URL and PSP_KEY must be set")
	}
	cfg := &stripe.BackendConfig{URL: stripe.String(psp), MaxNetworkRetries: stripe.Int64(2),
		HTTPClient:    &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelInfo}}
	s := &server{sc: stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg))), done: map[string]payment{},
		stableKeys: *stable, flaw: *flaw}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	mux.HandleFunc("POST /payments", s.create)
	mux.HandleFunc("POST /payments/{id}/capture", s.capture)
	mux.HandleFunc("POST /payments/{id}/refund", s.refund)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	log.Printf("stripesvc listening on %s", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var m struct {
		OrderID       string `json:"order_id"`
		Amount        int64  `json:"amount"`
		Currency      string `json:"currency"`
		PaymentMethod string `json:"payment_method"`
		CaptureMethod string `json:"capture_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Amount <= 0 {
		writeJSON(w, 400, map[string]any{"status": "invalid"})
		return
	}
	scope := scopeOf(r, "create")
	p, ok := s.stored(scope)
	if ok {
		writeJSON(w, 201, p)
		return
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(m.Amount), Currency: stripe.String(strings.ToLower(m.Currency)),
		PaymentMethod: stripe.String(m.PaymentMethod), Confirm: stripe.Bool(true),
		Metadata: map[string]string{"order_id": m.OrderID}}
	if m.CaptureMethod == "manual" {
		params.CaptureMethod = stripe.String(string(stripe.PaymentIntentCaptureMethodManual))
	}
	if s.stableKeys {
		params.SetIdempotencyKey(pspKey(scope))
	}
	pi, err := s.sc.V1PaymentIntents.Create(r.Context(), params)
	if err != nil {
		// Nothing stored: the next attempt is a new business attempt.
		log.Printf("psp: %v", err)
		writeJSON(w, 503, map[string]any{"status": "error"})
		return
	}
	p = payment{ID: "pay_" + pi.ID, Status: "succeeded", Amount: m.Amount}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
	case stripe.PaymentIntentStatusRequiresCapture:
		p.Status = "authorized"
	default:
		p.Status = "failed"
	}
	s.store(scope, p)
	writeJSON(w, 201, p)
}

// scopeOf is one client request's idempotency scope: step, caller, key.
func scopeOf(r *http.Request, step string) string {
	return step + "\x00" + r.Header.Get("Authorization") + "\x00" + r.Header.Get("Idempotency-Key")
}

// pspKey derives the PSP key of a scope: the same client request always
// reaches the PSP under the same key, and no two scopes share one.
func pspKey(scope string) string {
	h := sha256.Sum256([]byte(scope))
	return "stripesvc-" + hex.EncodeToString(h[:16])
}

func (s *server) stored(scope string) (payment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.done[scope]
	return p, ok
}

func (s *server) store(scope string, p payment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done[scope] = p
}
