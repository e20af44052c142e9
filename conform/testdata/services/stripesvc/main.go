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
// --flaw names one bug of the authorize/capture/refund path, each the one
// thing wrong with an otherwise --stable-keys service, so that S-capture has
// a service for every kind it names (capture.go):
//
//   - capture-fresh-key: the capture uses stripe-go's own key per attempt: a
//     capture whose reply is lost is retried under a new key, Stripe refuses
//     it (already captured), and the client is told the capture failed
//     although the money moved (failed-but-charged).
//   - authorize-fresh-key: the authorize does, so a client's retry after a
//     lost reply authorizes again (double-authorization).
//   - authorize-captures: the authorize captures at once, so the order is
//     charged before any capture request (S-capture is inconclusive).
//   - capture-recharge: a capture that errors falls back to charging the
//     payment method afresh, although the capture went through (a second
//     charge for one payment: double-charge).
//   - capture-no-psp, refund-no-psp: the step is answered succeeded and never
//     sent to the PSP, left to a batch job that never runs (lost-effect).
//   - refund-fresh-key: the refund uses stripe-go's own key per attempt; with
//     a partial amount in the request ({"amount": N}) a retry after a lost
//     reply refunds again (double-refund).
//   - refund-by-cancel: the refund cancels the PaymentIntent, as for an
//     uncaptured authorization; Stripe refuses to cancel a captured payment,
//     so nothing is refunded and the client hears so (S-capture is
//     inconclusive: no refund to judge).
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
	"slices"
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
	// orders are the authorizations' create params by PaymentIntent id,
	// for capture-recharge's fallback charge.
	orders map[string]*stripe.PaymentIntentCreateParams
}

// flaws are the --flaw values (see the package comment).
var flaws = []string{"none", "capture-fresh-key", "authorize-fresh-key", "authorize-captures", "capture-recharge",
	"capture-no-psp", "refund-no-psp", "refund-fresh-key", "refund-by-cancel"}

func main() {
	stable := flag.Bool("stable-keys", false, "derive every PSP idempotency key from the client's caller and key")
	flaw := flag.String("flaw", "none", "one of "+strings.Join(flaws, ", ")+" (see the package comment)")
	flag.Parse()
	if !slices.Contains(flaws, *flaw) {
		log.Fatalf("--flaw %q: want one of %s", *flaw, strings.Join(flaws, ", "))
	}
	psp, key := os.Getenv("PSP_URL"), os.Getenv("PSP_KEY")
	if psp == "" || key == "" {
		log.Fatal("PSP_URL and PSP_KEY must be set")
	}
	cfg := &stripe.BackendConfig{URL: stripe.String(psp), MaxNetworkRetries: stripe.Int64(2),
		HTTPClient:    &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelInfo}}
	s := &server{sc: stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg))), done: map[string]payment{},
		stableKeys: *stable, flaw: *flaw, orders: map[string]*stripe.PaymentIntentCreateParams{}}
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
	if s.stableKeys && !(m.CaptureMethod == "manual" && s.flaw == "authorize-fresh-key") {
		params.SetIdempotencyKey(pspKey(scope))
	}
	pi, err := s.sc.V1PaymentIntents.Create(r.Context(), params)
	if err != nil {
		// Nothing stored: the next attempt is a new business attempt.
		log.Printf("psp: %v", err)
		writeJSON(w, 503, map[string]any{"status": "error"})
		return
	}
	if pi.Status == stripe.PaymentIntentStatusRequiresCapture {
		s.mu.Lock()
		s.orders[pi.ID] = params
		s.mu.Unlock()
		if s.flaw == "authorize-captures" {
			cp := &stripe.PaymentIntentCaptureParams{}
			cp.SetIdempotencyKey(pspKey(scope + "\x00capture"))
			if pi, err = s.sc.V1PaymentIntents.Capture(r.Context(), pi.ID, cp); err != nil {
				log.Printf("psp: %v", err)
				writeJSON(w, 503, map[string]any{"status": "error"})
				return
			}
		}
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
