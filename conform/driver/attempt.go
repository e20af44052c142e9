// Package driver sends the target's requests exactly once each and records
// every copy: a harness that must count what it sent cannot let net/http
// resend on its own (docs/PITFALLS.md#net-http).
package driver

import (
	"net/http"
	"sort"
	"strings"
)

// Attempt is one copy idemcheck sent and what came back.
type Attempt struct {
	Seq      int    `json:"seq"`
	Step     string `json:"step"`
	Caller   string `json:"caller"`
	Intent   string `json:"intent"`
	Instance int    `json:"instance"`
	// Amount is the meaning's amount idemcheck sent (create requests).
	Amount int64  `json:"amount,omitempty"`
	Method string `json:"method"`
	URL    string `json:"url"`
	// ReqHeaders have Authorization (and any header a caller sets with a
	// secret-looking name) redacted.
	ReqHeaders  map[string]string `json:"request_headers"`
	ReqBody     string            `json:"request_body,omitempty"`
	Status      int               `json:"status"`
	RespHeaders map[string]string `json:"response_headers,omitempty"`
	RespBody    string            `json:"response_body,omitempty"`
	// Err is a transport error: the outcome is unknown to the client.
	Err       string `json:"error,omitempty"`
	Call      int64  `json:"call"`
	Return    int64  `json:"return"`
	Outcome   string `json:"outcome"`
	PaymentID string `json:"payment_id,omitempty"`
}

// Header returns a response header, case-insensitively.
func (a *Attempt) Header(name string) (string, bool) {
	for k, v := range a.RespHeaders {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Unknown reports whether the client never learned the outcome.
func (a *Attempt) Unknown() bool { return a.Err != "" }

var secretHeader = []string{"authorization", "cookie", "x-api-key", "api-key", "proxy-authorization"}

func redact(h http.Header) map[string]string {
	out := map[string]string{}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.Join(h[k], ", ")
		for _, s := range secretHeader {
			if strings.EqualFold(k, s) {
				v = "[redacted]"
			}
		}
		out[k] = v
	}
	return out
}

func flat(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = strings.Join(v, ", ")
	}
	return out
}
