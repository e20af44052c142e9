package adyen

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
)

// Amount is Adyen's money: value in minor units and an ISO currency code.
type Amount struct {
	Currency string `json:"currency"`
	Value    int64  `json:"value"`
}

// PaymentMethod is the part of a payment request that names the card: its
// details (test numbers in the clear, or Adyen's encrypted fields, which
// the fake takes as given) or a stored payment method's id.
type PaymentMethod struct {
	Type                  string `json:"type"`
	Number                string `json:"number,omitempty"`
	EncryptedCardNumber   string `json:"encryptedCardNumber,omitempty"`
	HolderName            string `json:"holderName,omitempty"`
	StoredPaymentMethodID string `json:"storedPaymentMethodId,omitempty"`
}

// PaymentRequest is the body of POST /payments this dialect reads.
type PaymentRequest struct {
	Amount          *Amount           `json:"amount"`
	Reference       string            `json:"reference"`
	MerchantAccount string            `json:"merchantAccount"`
	PaymentMethod   *PaymentMethod    `json:"paymentMethod"`
	ShopperRef      string            `json:"shopperReference,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
	AdditionalData  map[string]string `json:"additionalData,omitempty"`
	// CaptureDelayHours 0 captures at once; a manual capture is asked with
	// additionalData.manualCapture "true".
	CaptureDelayHours *int `json:"captureDelayHours,omitempty"`
}

// ParsePayment reads a /payments body, refusing what Adyen refuses with
// its validation error (status 422): a malformed body, or a missing
// amount, reference, merchant account or payment method.
func ParsePayment(body []byte) (PaymentRequest, *ServiceError) {
	var r PaymentRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return r, invalid(CodeInvalid, "Structure of PaymentRequest contains the following unknown fields or is not valid JSON: "+err.Error())
	}
	switch {
	case r.Amount == nil:
		return r, invalid(CodeInvalid, "Required field 'amount' is not provided.")
	case r.Amount.Currency == "":
		return r, invalid(CodeInvalid, "Required field 'amount.currency' is not provided.")
	case r.Amount.Value < 0:
		return r, invalid(CodeInvalid, "Field 'amount.value' is not valid.")
	case r.Reference == "":
		return r, invalid(CodeInvalid, "Required field 'reference' is not provided.")
	case r.MerchantAccount == "":
		return r, invalid(CodeInvalid, "Required field 'merchantAccount' is not provided.")
	case r.PaymentMethod == nil:
		return r, invalid(CodeInvalid, "Required field 'paymentMethod' is not provided.")
	}
	r.Amount.Currency = strings.ToUpper(r.Amount.Currency)
	return r, nil
}

// Manual says whether the request asks for a later capture.
func (r PaymentRequest) Manual() bool {
	return strings.EqualFold(r.AdditionalData["manualCapture"], "true") || (r.CaptureDelayHours != nil && *r.CaptureDelayHours > 0)
}

// PaymentResponse is Adyen's answer to /payments.
type PaymentResponse struct {
	PSPReference      string            `json:"pspReference"`
	ResultCode        string            `json:"resultCode"`
	Amount            *Amount           `json:"amount,omitempty"`
	MerchantReference string            `json:"merchantReference"`
	RefusalReason     string            `json:"refusalReason,omitempty"`
	RefusalReasonCode string            `json:"refusalReasonCode,omitempty"`
	AdditionalData    map[string]string `json:"additionalData,omitempty"`
}

// The result codes this dialect answers.
const (
	ResultAuthorised = "Authorised"
	ResultRefused    = "Refused"
	ResultError      = "Error"
)

// ModificationRequest is the body of a capture, refund, cancel or
// reversal of a payment named in the path.
type ModificationRequest struct {
	MerchantAccount string  `json:"merchantAccount"`
	Amount          *Amount `json:"amount,omitempty"`
	Reference       string  `json:"reference,omitempty"`
}

// ParseModification reads a modification's body; amount says whether the
// operation needs one (captures and refunds do).
func ParseModification(body []byte, amount bool) (ModificationRequest, *ServiceError) {
	var r ModificationRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return r, invalid(CodeInvalid, "The request body is not valid JSON: "+err.Error())
	}
	switch {
	case r.MerchantAccount == "":
		return r, invalid(CodeInvalid, "Required field 'merchantAccount' is not provided.")
	case amount && r.Amount == nil:
		return r, invalid(CodeInvalid, "Required field 'amount' is not provided.")
	case amount && r.Amount.Value <= 0:
		return r, invalid(CodeInvalid, "Field 'amount.value' is not valid.")
	}
	if r.Amount != nil {
		r.Amount.Currency = strings.ToUpper(r.Amount.Currency)
	}
	return r, nil
}

// ModificationResponse is Adyen's answer to a modification: 201 and
// "received"; whether it succeeded comes later, in its notification.
type ModificationResponse struct {
	MerchantAccount     string  `json:"merchantAccount"`
	PaymentPSPReference string  `json:"paymentPspReference"`
	PSPReference        string  `json:"pspReference"`
	Reference           string  `json:"reference,omitempty"`
	Status              string  `json:"status"`
	Amount              *Amount `json:"amount,omitempty"`
}

// StatusReceived is every modification's answer.
const StatusReceived = "received"

// NewPSPReference is a fresh 16-character reference in Adyen's alphabet.
func NewPSPReference() string {
	const alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func invalid(code, msg string) *ServiceError {
	return &ServiceError{Status: 422, ErrorCode: code, Message: msg, ErrorType: "validation"}
}

// Error makes the ServiceError an error for logs.
func (e *ServiceError) Error() string {
	return fmt.Sprintf("adyen %d %s: %s", e.Status, e.ErrorCode, e.Message)
}
