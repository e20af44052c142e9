package main

import (
	"errors"
	"log"
	"net/http"
	"strings"

	"github.com/stripe/stripe-go/v85"
)

// capture captures an authorized payment. Its answers are stored per
// client key like the create's; only a success is stored, so a client's
// retry after an error is a new attempt at the PSP.
func (s *server) capture(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.PathValue("id"), "pay_")
	if !ok || r.Header.Get("Idempotency-Key") == "" {
		writeJSON(w, 400, map[string]any{"status": "invalid"})
		return
	}
	scope := scopeOf(r, "capture "+id)
	if p, ok := s.stored(scope); ok {
		writeJSON(w, 200, p)
		return
	}
	params := &stripe.PaymentIntentCaptureParams{}
	if s.stableKeys && s.flaw != "capture-fresh-key" {
		params.SetIdempotencyKey(pspKey(scope))
	}
	pi, err := s.sc.V1PaymentIntents.Capture(r.Context(), id, params)
	if err != nil {
		s.pspError(w, err)
		return
	}
	p := payment{ID: "pay_" + pi.ID, Status: "succeeded", Amount: pi.AmountReceived}
	s.store(scope, p)
	writeJSON(w, 200, p)
}

// refund refunds a captured payment in full.
func (s *server) refund(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.PathValue("id"), "pay_")
	if !ok {
		writeJSON(w, 400, map[string]any{"status": "invalid"})
		return
	}
	scope := scopeOf(r, "refund "+id)
	if p, ok := s.stored(scope); ok {
		writeJSON(w, 200, p)
		return
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(id)}
	if s.stableKeys {
		params.SetIdempotencyKey(pspKey(scope))
	}
	rf, err := s.sc.V1Refunds.Create(r.Context(), params)
	if err != nil {
		s.pspError(w, err)
		return
	}
	p := payment{ID: "pay_" + id, Status: "refunded", Amount: rf.Amount}
	s.store(scope, p)
	writeJSON(w, 200, p)
}

// pspError maps what stripe-go returned the way a plain integration does: a
// request Stripe refused (a card or request error) is a failed payment step,
// anything else (no answer, a 5xx) is an error to retry.
func (s *server) pspError(w http.ResponseWriter, err error) {
	log.Printf("psp: %v", err)
	var se *stripe.Error
	if errors.As(err, &se) && (se.Type == stripe.ErrorTypeCard || se.Type == stripe.ErrorTypeInvalidRequest) {
		writeJSON(w, 402, map[string]any{"status": "failed", "error": se.Msg})
		return
	}
	writeJSON(w, 503, map[string]any{"status": "error"})
}
