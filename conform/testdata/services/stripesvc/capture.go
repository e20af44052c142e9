package main

import (
	"encoding/json"
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
	if s.flaw == "capture-no-psp" {
		// "Captured": the batch job that would capture it never runs.
		p := payment{ID: "pay_" + id, Status: "succeeded"}
		s.store(scope, p)
		writeJSON(w, 200, p)
		return
	}
	params := &stripe.PaymentIntentCaptureParams{}
	if s.stableKeys && s.flaw != "capture-fresh-key" {
		params.SetIdempotencyKey(pspKey(scope))
	}
	pi, err := s.sc.V1PaymentIntents.Capture(r.Context(), id, params)
	if err != nil && s.flaw == "capture-recharge" {
		// The capture "failed", so charge the card again: with its reply
		// lost, the capture went through all the same.
		pi, err = s.recharge(r, id)
	}
	if err != nil {
		s.pspError(w, err)
		return
	}
	p := payment{ID: "pay_" + id, Status: "succeeded", Amount: pi.AmountReceived}
	s.store(scope, p)
	writeJSON(w, 200, p)
}

// recharge is capture-recharge's fallback: a new automatic-capture
// PaymentIntent for the authorization's order, under stripe-go's own key.
func (s *server) recharge(r *http.Request, id string) (*stripe.PaymentIntent, error) {
	s.mu.Lock()
	o := s.orders[id]
	s.mu.Unlock()
	if o == nil {
		return nil, errors.New("recharge: no authorization " + id)
	}
	return s.sc.V1PaymentIntents.Create(r.Context(), &stripe.PaymentIntentCreateParams{Amount: o.Amount, Currency: o.Currency,
		PaymentMethod: o.PaymentMethod, Confirm: stripe.Bool(true), Metadata: o.Metadata})
}

// refund refunds a captured payment, in full unless the body names an
// amount ({"amount": N}).
func (s *server) refund(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.PathValue("id"), "pay_")
	var body struct {
		Amount int64 `json:"amount"`
	}
	if r.ContentLength != 0 {
		ok = ok && json.NewDecoder(r.Body).Decode(&body) == nil && body.Amount >= 0
	}
	if !ok {
		writeJSON(w, 400, map[string]any{"status": "invalid"})
		return
	}
	scope := scopeOf(r, "refund "+id)
	if p, ok := s.stored(scope); ok {
		writeJSON(w, 200, p)
		return
	}
	if s.flaw == "refund-no-psp" {
		// "Refunded": the batch job that would refund it never runs.
		p := payment{ID: "pay_" + id, Status: "refunded", Amount: body.Amount}
		s.store(scope, p)
		writeJSON(w, 200, p)
		return
	}
	if s.flaw == "refund-by-cancel" {
		cp := &stripe.PaymentIntentCancelParams{}
		cp.SetIdempotencyKey(pspKey(scope))
		if _, err := s.sc.V1PaymentIntents.Cancel(r.Context(), id, cp); err != nil {
			s.pspError(w, err)
			return
		}
		p := payment{ID: "pay_" + id, Status: "refunded"}
		s.store(scope, p)
		writeJSON(w, 200, p)
		return
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(id)}
	if body.Amount > 0 {
		params.Amount = stripe.Int64(body.Amount)
	}
	if s.stableKeys && s.flaw != "refund-fresh-key" {
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
