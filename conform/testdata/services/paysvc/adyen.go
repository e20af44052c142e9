package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Adyen side of paysvc (--psp adyen): its payment call and its
// notification handler, written to Adyen's documented wire (Checkout API
// v71, standard webhooks with HMAC-signed items). Adyen's Go library is
// not on this machine's module proxy; Adyen's Python library is checked
// against the same fake in fakepsp/adyen.

const adyenMerchant = "IdemcheckECOM"

// callAdyen makes the payment under the PSP key: Authorised is a charge,
// Refused or Error a final failure (402), a key still in use (704) an
// outcome not yet known (409, as Stripe's), anything else as answered.
func (s *server) callAdyen(key string, rec *record) (int, string, error) {
	holder := "J Smith"
	if strings.Contains(strings.ToLower(rec.PaymentMethod), "decline") {
		holder = "REFUSED" // Adyen's test platform refuses by holder name
	}
	body, _ := json.Marshal(map[string]any{
		"amount":          map[string]any{"value": rec.Amount, "currency": strings.ToUpper(rec.Currency)},
		"reference":       rec.PaymentID,
		"merchantAccount": adyenMerchant,
		"paymentMethod":   map[string]any{"type": "scheme", "number": "4111111145551142", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737", "holderName": holder},
		"metadata":        map[string]string{"payment_id": rec.PaymentID},
	})
	req, err := http.NewRequest("POST", s.psp+"/v71/payments", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("X-API-Key", s.pspKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	var out struct {
		PSPReference string `json:"pspReference"`
		ResultCode   string `json:"resultCode"`
		ErrorCode    string `json:"errorCode"`
	}
	_ = json.Unmarshal(b, &out)
	switch {
	case resp.StatusCode == 200 && out.ResultCode == "Authorised":
		return 200, out.PSPReference, nil
	case resp.StatusCode == 200:
		return 402, out.PSPReference, nil
	case out.ErrorCode == "704":
		return 409, "", nil
	}
	log.Printf("psp answered %d: %s", resp.StatusCode, b)
	return resp.StatusCode, "", nil
}

type adyenItem struct {
	AdditionalData map[string]string `json:"additionalData"`
	Amount         struct {
		Value    int64  `json:"value"`
		Currency string `json:"currency"`
	} `json:"amount"`
	EventCode           string `json:"eventCode"`
	MerchantAccountCode string `json:"merchantAccountCode"`
	MerchantReference   string `json:"merchantReference"`
	OriginalReference   string `json:"originalReference"`
	PSPReference        string `json:"pspReference"`
	Success             string `json:"success"`
}

// verifyAdyen checks an item's HMAC: the eight fields Adyen signs, joined
// by ':', under the hex key, base64 in additionalData.hmacSignature.
func (h *hooks) verifyAdyen(it adyenItem) error {
	if h.flaw == "no-signature" {
		return nil
	}
	key, err := hex.DecodeString(h.secret)
	if err != nil {
		return errors.New("the HMAC key is not hex")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join([]string{it.PSPReference, it.OriginalReference, it.MerchantAccountCode, it.MerchantReference,
		strconv.FormatInt(it.Amount.Value, 10), it.Amount.Currency, it.EventCode, it.Success}, ":")))
	got, err := base64.StdEncoding.DecodeString(it.AdditionalData["hmacSignature"])
	if err != nil || !hmac.Equal(got, m.Sum(nil)) {
		return errors.New("no valid hmacSignature")
	}
	return nil
}

// serveAdyen takes a batch of notification items: each is verified, and a
// successful AUTHORISATION credits its payment (a REFUND debits it) once,
// deduplicated on what Adyen tells receivers to use (event code and
// pspReference, with success). The batch is accepted with [accepted].
func (h *hooks) serveAdyen(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var n struct {
		Items []struct {
			Item adyenItem `json:"NotificationRequestItem"`
		} `json:"notificationItems"`
	}
	if json.Unmarshal(body, &n) != nil || len(n.Items) == 0 {
		http.Error(w, "not a notification", 400)
		return
	}
	var rows []creditRow
	for _, x := range n.Items {
		it := x.Item
		if err := h.verifyAdyen(it); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if it.Success != "true" {
			continue
		}
		row := creditRow{EventID: it.EventCode + ":" + it.PSPReference + ":" + it.Success, Type: it.EventCode}
		switch it.EventCode {
		case "AUTHORISATION":
			row.PI, row.Amount = it.PSPReference, it.Amount.Value
			if h.flaw == "unknown-dropped" {
				if rec, _ := h.s.store.find(it.MerchantReference); rec == nil || rec.State != "done" {
					continue // "not ours yet": the credit is lost
				}
			}
		case "REFUND":
			row.PI, row.Ref, row.Amount = it.OriginalReference, it.PSPReference, -it.Amount.Value
		default:
			continue
		}
		rows = append(rows, row)
	}
	if h.flaw == "ack-first" {
		go func() {
			time.Sleep(400 * time.Millisecond)
			for _, row := range rows {
				_ = h.apply(row)
			}
		}()
		_, _ = w.Write([]byte("[accepted]"))
		return
	}
	for _, row := range rows {
		if err := h.apply(row); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
	}
	_, _ = w.Write([]byte("[accepted]"))
}
