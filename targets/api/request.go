package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// MaxKeyLen bounds the Idempotency-Key header.
const MaxKeyLen = 255

// currencies the API accepts (ISO 4217, upper case).
var currencies = map[string]bool{"USD": true, "EUR": true, "GBP": true, "JPY": true, "CAD": true, "AUD": true, "CHF": true}

// Request is the meaning of a create-payment body. Extra fields (a client
// timestamp, say) are ignored: they are not part of the meaning.
type Request struct {
	OrderID       string
	Amount        int64
	Currency      string
	PaymentMethod string
	Merchant      string
}

// ParseRequest validates a body and says which field is wrong.
func ParseRequest(body []byte) (Request, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return Request{}, fmt.Errorf("body: malformed JSON: %v", err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("body: malformed JSON: trailing data after the object")
	}
	var r Request
	str := func(name string, required bool) (string, error) {
		v, ok := raw[name]
		if !ok {
			if required {
				return "", fmt.Errorf("body: field %q is required", name)
			}
			return "", nil
		}
		if s, ok := plainString(v); ok {
			return s, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil || s == "" {
			return "", fmt.Errorf("body: field %q must be a non-empty string", name)
		}
		return s, nil
	}
	var err error
	if r.OrderID, err = str("order_id", true); err != nil {
		return r, err
	}
	if r.PaymentMethod, err = str("payment_method", true); err != nil {
		return r, err
	}
	if r.Merchant, err = str("merchant", false); err != nil {
		return r, err
	}
	cur, err := str("currency", true)
	if err != nil {
		return r, err
	}
	if !currencies[cur] {
		return r, fmt.Errorf("body: field \"currency\": unknown currency %q", cur)
	}
	r.Currency = cur
	av, ok := raw["amount"]
	if !ok {
		return r, fmt.Errorf("body: field \"amount\" is required")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(av)), 10, 64)
	if err != nil {
		return r, fmt.Errorf("body: field \"amount\" must be an integer number of minor units, got %s", av)
	}
	if n <= 0 {
		return r, fmt.Errorf("body: field \"amount\" must be positive, got %d", n)
	}
	r.Amount = n
	return r, nil
}

// plainString reads a JSON string with no escapes and no control bytes,
// which every well-behaved client sends, without a decoder; anything else
// (escapes, non-strings, "") is left to encoding/json, which decides.
func plainString(v json.RawMessage) (string, bool) {
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}

// Fingerprint hashes the meaning fields in a fixed order, so a reordered body
// or an extra field is the same request.
func Fingerprint(r Request) string {
	h := sha256.Sum256([]byte(strings.Join([]string{r.OrderID, strconv.FormatInt(r.Amount, 10), r.Currency, r.PaymentMethod}, "\x1f")))
	return hex.EncodeToString(h[:12])
}

// RawFingerprint hashes the body bytes: the mutant fingerprint-raw-bytes.
func RawFingerprint(body []byte) string {
	h := sha256.Sum256(body)
	return hex.EncodeToString(h[:12])
}

// Scope is endpoint:caller:key (the mutant key-not-scoped drops the caller).
func Scope(caller, key string, scoped bool) string {
	if !scoped {
		return "payments:" + key
	}
	return "payments:" + caller + ":" + key
}

// PaymentID is derived from the scope, never random, so a resolver, a
// takeover or another Region re-creates it.
func PaymentID(scope string) string {
	h := sha256.Sum256([]byte(scope))
	return "pay_" + hex.EncodeToString(h[:8])
}

// ChargeKey is the PSP idempotency key of a payment's charge.
func ChargeKey(paymentID string) string { return paymentID + ":charge" }

// RefundKey is the PSP idempotency key of a payment's refund.
func RefundKey(paymentID string) string { return paymentID + ":cancel:refund" }
