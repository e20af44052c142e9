package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// refund gives half of a succeeded payment back, once: the PSP key is derived from the
// payment id and the refund is remembered, so a repeat moves no money.
func (s *server) refund(w http.ResponseWriter, r *http.Request) {
	caller := s.caller(r)
	rec, err := s.store.find(r.PathValue("id"))
	if err != nil {
		problem(w, 500, "store_error", err.Error())
		return
	}
	if rec == nil || (s.flaw != "unscoped" && !strings.HasPrefix(rec.Scope, caller+"\x00")) {
		problem(w, 404, "not_found", "no such payment")
		return
	}
	var body struct {
		Status string `json:"status"`
		Charge string `json:"charge"`
	}
	_ = json.Unmarshal([]byte(rec.Body), &body)
	if rec.State != "done" || body.Status != "succeeded" {
		problem(w, 409, "not_refundable", "only a succeeded payment can be refunded")
		return
	}
	out := map[string]any{"id": rec.PaymentID, "status": "refunded"}
	if rec.Refunded && s.flaw != "fresh-refund-key" {
		writeJSON(w, 200, out)
		return
	}
	key := rec.PaymentID + ":refund"
	if s.flaw == "fresh-refund-key" {
		key = rec.PaymentID + ":refund:" + randHex(4)
	}
	// A partial refund (half), so a repeated refund would find money left
	// to move: the PSP's own full-refund guard must not hide the flaw.
	req := s.refundRequest(body.Charge, rec, key)
	resp, err := s.client.Do(req)
	if err != nil {
		out["status"] = "refund_pending"
		writeJSON(w, 202, out)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		out["status"] = "refund_pending"
		out["psp"] = string(b)
		writeJSON(w, 202, out)
		return
	}
	if err := s.store.markRefunded(rec.PaymentID); err != nil {
		problem(w, 500, "store_error", err.Error())
		return
	}
	writeJSON(w, 200, out)
}

// refundRequest is the PSP call refunding half of charge under key:
// Stripe's POST /v1/refunds, or Adyen's refund of the payment (201
// "received"; its REFUND notification says how it ended).
func (s *server) refundRequest(charge string, rec *record, key string) *http.Request {
	var req *http.Request
	if s.adyen {
		b, _ := json.Marshal(map[string]any{"merchantAccount": adyenMerchant,
			"amount": map[string]any{"value": rec.Amount / 2, "currency": strings.ToUpper(rec.Currency)}})
		req, _ = http.NewRequest("POST", s.psp+"/v71/payments/"+charge+"/refunds", bytes.NewReader(b))
		req.Header.Set("X-API-Key", s.pspKey)
		req.Header.Set("Content-Type", "application/json")
	} else {
		form := url.Values{"payment_intent": {charge}, "amount": {strconv.FormatInt(rec.Amount/2, 10)}}
		req, _ = http.NewRequest("POST", s.psp+"/v1/refunds", strings.NewReader(form.Encode()))
		req.Header.Set("Authorization", "Bearer "+s.pspKey)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Idempotency-Key", key)
	return req
}
