// Package onecopy sends one copy of a request and says what its client
// learned: the one "is the outcome known" rule of every client that records
// a history (conform's driver, the suites' kit, the buyer's phone). A copy
// whose status or whole body never came back is unknown (it may have taken
// effect), never an error answer.
package onecopy

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// Client sends each request exactly once: no connection is ever reused, so
// net/http has no dead reused connection to retry a copy on behind the
// history's back (docs/PITFALLS.md#net-http); redirects come back as they
// are, and nothing goes through a proxy. timeout 0 leaves each copy to its
// request's context.
func Client(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		DisableKeepAlives:  true,
		DialContext:        (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		DisableCompression: true,
		Proxy:              nil,
	}
	return &http.Client{Timeout: timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Reply is what one copy learned.
type Reply struct {
	Status int // 0: no reply
	Header http.Header
	Body   []byte
	// Err is the transport's error, or the body's when the status came and
	// the body did not: either way the outcome is unknown.
	Err error
}

// Known reports whether a status and the whole body came back.
func (r Reply) Known() bool { return r.Err == nil && r.Status != 0 }

// Do sends req once through c and reads at most limit bytes of the answer.
// Nothing may rebuild the body for a resend.
func Do(c *http.Client, req *http.Request, limit int64) Reply {
	req.GetBody = nil
	resp, err := c.Do(req)
	if err != nil {
		return Reply{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: err}
}

// JSONOutcome reads an answer shaped as the reference's, {"status": outcome,
// "payment_id": id}: a status the checker knows, under 500, is the outcome;
// anything else is an error answer.
func JSONOutcome(status int, body []byte) (outcome, paymentID string) {
	var w struct {
		Status    string `json:"status"`
		PaymentID string `json:"payment_id"`
	}
	_ = json.Unmarshal(body, &w)
	switch w.Status {
	case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeInProgress,
		history.OutcomeMismatch, history.OutcomeVoid:
		if status < 500 {
			return w.Status, w.PaymentID
		}
	}
	return history.OutcomeError, w.PaymentID
}

// Record ends pend (nil: not recorded) with what the copy learned: unknown
// when known is false, else out, and the payment id the answer named.
func Record(pend *history.Pending, known bool, out history.Output) {
	if pend == nil {
		return
	}
	if !known {
		_ = pend.Unknown()
		return
	}
	if out.PaymentID != "" {
		pend.SetPaymentID(out.PaymentID)
	}
	_ = pend.End(out)
}
