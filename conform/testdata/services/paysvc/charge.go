package main

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// charge calls the PSP and stores the answer, completing only if this
// process still owns the record.
func (s *server) charge(w http.ResponseWriter, rec *record) {
	if s.flaw != "check-then-insert" && s.flaw != "racy-forward-key" {
		time.Sleep(s.hold)
	}
	pspKey := rec.PSPKey
	if s.flaw == "new-psp-key" || s.flaw == "no-key" {
		pspKey = rec.PaymentID + ":" + randHex(4)
	}
	status, chargeID, err := s.callPSP(pspKey, rec)
	if status >= 500 && s.flaw != "reexec-after-5xx" && s.flaw != "store-5xx" {
		// Stripe replays a saved 500 for the same key: find the charge by
		// the payment's metadata instead.
		if id, found := s.searchCharge(rec.PaymentID); found {
			status, chargeID, err = 200, id, nil
		} else if s.flaw == "search-once" {
			// Search is not read-after-write: "not found" is no proof.
			status, err = 402, nil
		}
	}
	body := map[string]any{"id": rec.PaymentID, "amount": rec.Amount, "currency": rec.Currency}
	switch {
	case s.flaw == "store-5xx" && err == nil && status >= 500:
		body["status"] = "error"
		s.complete(w, rec, 500, body)
		return
	case err != nil || status >= 500 || status == 429 || status == 409:
		// No answer, a server error, a rate limit, or the PSP still executing
		// this key: the outcome is unknown, never a failure.
		if s.flaw == "reexec-after-5xx" {
			_ = s.store.remove(rec.Scope, s.me)
			body["status"] = "failed"
			writeJSON(w, 502, body)
			return
		}
		_ = s.store.markUnknown(rec.Scope, s.me)
		body["status"] = "processing"
		writeJSON(w, 202, body)
		return
	case status >= 400:
		body["status"] = "failed"
		s.complete(w, rec, 402, body)
	default:
		s.charged.Add(1)
		body["status"] = "succeeded"
		body["charge"] = chargeID
		if s.complete(w, rec, 201, body) {
			s.record(rec)
			if s.flaw == "sweeper" {
				r := *rec
				time.AfterFunc(s.sweep, func() { _, _, _ = s.callPSP("sweep-"+randHex(4), &r) })
			}
		}
	}
}

// complete stores the answer and sends it; it reports whether this call
// completed the record (the one execution that counts).
func (s *server) complete(w http.ResponseWriter, rec *record, status int, body map[string]any) bool {
	b, _ := json.Marshal(body)
	if rec.Scope == "" { // no-key: nothing stored
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
		return true
	}
	if s.flaw == "late-store" {
		// The answer goes out first; the record still says in progress
		// until the store lands.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		scope := rec.Scope
		time.AfterFunc(s.storeLag, func() { _, _ = s.store.complete(scope, s.me, status, string(b)) })
		return true
	}
	final, err := s.store.complete(rec.Scope, s.me, status, string(b))
	if err != nil {
		problem(w, 500, "store_error", err.Error())
		return false
	}
	mine := final.justDone
	// A zombie whose lease was taken over answers from the record.
	w.Header().Set("Content-Type", "application/json")
	if final.State != "done" {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, 202, map[string]any{"id": final.PaymentID, "status": "processing"})
		return false
	}
	w.WriteHeader(final.Status)
	_, _ = w.Write([]byte(final.Body))
	return mine
}

func (s *server) callPSP(key string, rec *record) (int, string, error) {
	if s.adyen {
		return s.callAdyen(key, rec)
	}
	form := url.Values{}
	form.Set("amount", strconv.FormatInt(rec.Amount, 10))
	form.Set("currency", strings.ToLower(rec.Currency))
	form.Set("payment_method", rec.PaymentMethod)
	form.Set("confirm", "true")
	form.Set("metadata[payment_id]", rec.PaymentID)
	if s.flaw == "fee" {
		form.Set("amount", strconv.FormatInt(rec.Amount+30, 10))
		form.Set("description", "order "+rec.OrderID+" (fee included)")
	}
	req, err := http.NewRequest("POST", s.psp+"/v1/payment_intents", strings.NewReader(form.Encode()))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+s.pspKey)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", key)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var out struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	_ = json.Unmarshal(b, &out)
	if resp.StatusCode < 300 && out.Status != "succeeded" {
		return 402, out.ID, nil
	}
	if resp.StatusCode >= 300 {
		log.Printf("psp answered %d: %s", resp.StatusCode, b)
	}
	return resp.StatusCode, out.ID, nil
}
