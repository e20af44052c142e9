// Command stripesvc is a payment service that calls its PSP through
// stripe-go the way many do: every business attempt (each client request
// that finds no finished payment) creates a PaymentIntent with a new
// idempotency key, which stripe-go draws itself and reuses only across its
// own automatic retries. Losing one PSP reply is absorbed by those retries;
// losing every reply for that key is not, and the client's retry charges
// again: the flaw scenario A1 must catch.
package main

import (
	"context"
	"encoding/json"
	"errors"
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
	sc   *stripe.Client
	mu   sync.Mutex
	done map[string]payment // by caller and key
}

func main() {
	psp, key := os.Getenv("PSP_URL"), os.Getenv("PSP_KEY")
	if psp == "" || key == "" {
		log.Fatal("PSP_URL and PSP_KEY must be set")
	}
	cfg := &stripe.BackendConfig{URL: stripe.String(psp), MaxNetworkRetries: stripe.Int64(2),
		HTTPClient:    &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelInfo}}
	s := &server{sc: stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg))), done: map[string]payment{}}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	mux.HandleFunc("POST /payments", s.create)
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
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Amount <= 0 {
		writeJSON(w, 400, map[string]any{"status": "invalid"})
		return
	}
	scope := r.Header.Get("Authorization") + "\x00" + r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	p, ok := s.done[scope]
	s.mu.Unlock()
	if ok {
		writeJSON(w, 201, p)
		return
	}
	pi, err := s.sc.V1PaymentIntents.Create(r.Context(), &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(m.Amount), Currency: stripe.String(strings.ToLower(m.Currency)),
		PaymentMethod: stripe.String(m.PaymentMethod), Confirm: stripe.Bool(true),
		Metadata: map[string]string{"order_id": m.OrderID}})
	if err != nil {
		// Nothing stored: the next attempt is a new business attempt.
		log.Printf("psp: %v", err)
		writeJSON(w, 503, map[string]any{"status": "error"})
		return
	}
	p = payment{ID: "pay_" + pi.ID, Status: "succeeded", Amount: m.Amount}
	if pi.Status != stripe.PaymentIntentStatusSucceeded {
		p.Status = "failed"
	}
	s.mu.Lock()
	s.done[scope] = p
	s.mu.Unlock()
	writeJSON(w, 201, p)
}
