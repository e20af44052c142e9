package checkout

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// PaymentRequest is the body of POST /payments this dialect reads.
type PaymentRequest struct {
	Source *struct {
		Type   string `json:"type"`
		Number string `json:"number"`
		Token  string `json:"token"`
		ID     string `json:"id"`
	} `json:"source"`
	Amount    *int64            `json:"amount"`
	Currency  string            `json:"currency"`
	Reference string            `json:"reference"`
	Capture   *bool             `json:"capture"`
	Metadata  map[string]string `json:"metadata"`
}

// ParsePayment reads a payment request, refusing with 422 and the error
// codes what Checkout.com refuses.
func ParsePayment(body []byte) (PaymentRequest, *core.Reply) {
	var r PaymentRequest
	var codes []string
	if err := json.Unmarshal(body, &r); err != nil {
		bad := Err(http.StatusUnprocessableEntity, "request_invalid", "request_body_invalid")
		return r, &bad
	}
	if r.Source == nil {
		codes = append(codes, "source_required")
	}
	if r.Amount == nil || *r.Amount < 0 {
		codes = append(codes, "amount_invalid")
	}
	if len(r.Currency) != 3 {
		codes = append(codes, "currency_invalid")
	}
	if len(r.Reference) > 80 {
		codes = append(codes, "reference_invalid")
	}
	if len(codes) > 0 {
		bad := Err(http.StatusUnprocessableEntity, "request_invalid", codes...)
		return r, &bad
	}
	r.Currency = strings.ToUpper(r.Currency)
	return r, nil
}

// Captured says whether the payment is captured at once (capture defaults
// to true).
func (r PaymentRequest) Captured() bool { return r.Capture == nil || *r.Capture }

// Method names the payment's source for the ground truth.
func (r PaymentRequest) Method() string {
	switch {
	case r.Source.ID != "":
		return r.Source.ID
	case r.Source.Token != "":
		return r.Source.Token
	}
	return r.Source.Type
}

// PaymentResponse is the 201 answer to a payment. Its status is
// "Authorized" even when capture was asked: the capture is reported
// later, by payment_captured.
type PaymentResponse struct {
	ID              string            `json:"id"`
	ActionID        string            `json:"action_id"`
	Amount          int64             `json:"amount"`
	Currency        string            `json:"currency"`
	Approved        bool              `json:"approved"`
	Status          string            `json:"status"`
	ResponseCode    string            `json:"response_code"`
	ResponseSummary string            `json:"response_summary"`
	Reference       string            `json:"reference,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
}

// ActionRequest is the body of a capture, refund or void.
type ActionRequest struct {
	Amount    *int64 `json:"amount"`
	Reference string `json:"reference"`
}

// ActionResponse is the 202 answer to a capture, refund or void.
type ActionResponse struct {
	ActionID  string `json:"action_id"`
	Reference string `json:"reference,omitempty"`
}

func newID(prefix string) string { return prefix + "_" + token(26) }
