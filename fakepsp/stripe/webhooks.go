// Package stripe is Stripe's wire over fakepsp/core: its idempotency-key
// rules, form parameters, error bodies, objects and status words (a
// PaymentIntent is core.Payment with Stripe's words about it), search
// language, event envelope, how it signs a webhook and which answer it
// counts as received; and its API (server.go, routes.go and one file per
// group of endpoints), whose handlers parse a request into one of core.Ops'
// operations and render the outcome. The facade, package fakepsp, serves it
// through Dialect.Serve and lends it the shared parts (core.Host).
package stripe

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// DeliveryRequest is one webhook delivery of raw to url as Stripe sends it;
// an empty sig sends no Stripe-Signature.
func DeliveryRequest(ctx context.Context, url string, raw []byte, sig string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	if sig != "" {
		req.Header.Set("Stripe-Signature", sig)
	}
	return req, nil
}

// Accepted is a delivery Stripe counts as received: any 2xx, whatever the body.
func Accepted(a core.Answer) bool { return a.Status >= 200 && a.Status < 300 }

// SignatureHeader is the Stripe-Signature of body signed with secret at t:
// t=<unix>,v1=HMAC-SHA256(secret, "t.body").
func SignatureHeader(secret string, t time.Time, body []byte) string {
	return "t=" + strconv.FormatInt(t.Unix(), 10) + ",v1=" + sign(secret, t.Unix(), body)
}

func sign(secret string, t int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
