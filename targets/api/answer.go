package api

import (
	"encoding/json"
	"net/http"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/ledger"
)

// Answer is what the API tells a client; Status carries the checker's
// outcome names (HISTORY.md) so a phone records them as they are.
type Answer struct {
	Code      int    `json:"-"`
	PaymentID string `json:"payment_id,omitempty"`
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`
}

func codeOf(status string) int {
	switch status {
	case history.OutcomeSucceeded:
		return http.StatusOK
	case history.OutcomeFailed:
		return http.StatusPaymentRequired
	case history.OutcomeProcessing:
		return http.StatusAccepted
	case history.OutcomeInProgress, history.OutcomeVoid:
		return http.StatusConflict
	case history.OutcomeMismatch:
		return http.StatusUnprocessableEntity
	}
	return http.StatusServiceUnavailable
}

func answer(status, paymentID, msg string) Answer {
	return Answer{Code: codeOf(status), PaymentID: paymentID, Status: status, Error: msg}
}

func badRequest(msg string) Answer {
	return Answer{Code: http.StatusBadRequest, Status: history.OutcomeError, Error: msg}
}

// Render answers for a payment row: a pointer's answer is always rendered
// from the payment, so a retry an hour later hears the payment's state now.
func Render(p *ledger.Payment) Answer {
	switch p.State {
	case ledger.Succeeded:
		return answer(history.OutcomeSucceeded, p.ID, "")
	case ledger.Failed:
		return answer(history.OutcomeFailed, p.ID, "the payment failed")
	case ledger.Void:
		return answer(history.OutcomeVoid, p.ID, "this key was voided by a resolve call: use a new key")
	default:
		return answer(history.OutcomeProcessing, p.ID, "still confirming")
	}
}

func (a Answer) body() string {
	b, _ := json.Marshal(a)
	return string(b)
}

func write(w http.ResponseWriter, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	if a.PaymentID != "" {
		w.Header().Set("X-Payment-Id", a.PaymentID)
	}
	w.WriteHeader(a.Code)
	_, _ = w.Write([]byte(a.body() + "\n"))
}

func decodeStored(status int, body string) Answer {
	var a Answer
	if json.Unmarshal([]byte(body), &a) != nil {
		a = Answer{Status: history.OutcomeError, Error: "stored answer unreadable"}
	}
	a.Code = status
	return a
}
