package main

import (
	"net/http"
	"time"
)

// noLayer is the create of --flaw no-layer: no key store of its own, it
// forwards the client's key to the PSP and answers what the PSP answered,
// so the PSP's idempotency is the only one. A PSP 409 (the key's first
// request still executing there) is passed on as the service's 409.
func (s *server) noLayer(w http.ResponseWriter, caller, key string, amount int64, m meaning) {
	time.Sleep(s.hold) // the reference's work before the PSP call
	rec := &record{PaymentID: s.derivedID(caller + "\x00" + key), Amount: amount, Currency: m.Currency,
		PaymentMethod: m.PaymentMethod, OrderID: m.OrderID}
	status, chargeID, err := s.callPSP(key, rec)
	body := map[string]any{"id": rec.PaymentID, "amount": rec.Amount, "currency": rec.Currency}
	switch {
	case err != nil || status >= 500 || status == 429:
		body["status"] = "processing"
		writeJSON(w, 202, body)
	case status == 409:
		w.Header().Set("Retry-After", "1")
		problem(w, 409, "idempotency_key_in_use", "a request with this key is in progress")
	case status == 400:
		// The PSP refused the key with other parameters.
		problem(w, s.mmStatus, "idempotency_key_reused", "this key was used with a different request")
	case status >= 400:
		body["status"] = "failed"
		writeJSON(w, 402, body)
	default:
		s.charged.Add(1)
		body["status"] = "succeeded"
		body["charge"] = chargeID
		writeJSON(w, 201, body)
	}
}
