package checkout

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

func init() { core.Register(Dialect{}) }

// Dialect is Checkout.com's wire as core.Dialect asks for it.
type Dialect struct{}

// Keys are Checkout.com's Cko-Idempotency-Key rules. Its pages give no
// length limit, so the fake sets a generous one rather than a strict guess.
var Keys = core.KeyRules{Header: "Cko-Idempotency-Key", MaxLen: 1024, Window: 24 * time.Hour}

// Name is "checkout".
func (Dialect) Name() string { return "checkout" }

// Keys are Checkout.com's idempotency-key rules.
func (Dialect) Keys() core.KeyRules { return Keys }

// Credential reads the secret key: "Authorization: sk_..." as the API
// reference shows it, or with a Bearer prefix.
func (Dialect) Credential(r *http.Request) (string, bool) {
	k := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	return k, k != ""
}

// NewCredential is a fresh sandbox secret key.
func (Dialect) NewCredential() string { return "sk_sbox_" + token(26) }

// Webhooks is Checkout.com's webhook wire.
func (Dialect) Webhooks() core.WebhookWire { return webhookWire{} }

// CheckSecretKey: Checkout.com's secret keys start with sk_.
func (Dialect) CheckSecretKey(k string) string {
	if !strings.HasPrefix(k, "sk_") {
		return "must start with sk_ (a Checkout.com secret key)"
	}
	return ""
}

// CheckWebhookSecret: any signature key the merchant chose.
func (Dialect) CheckWebhookSecret(string) string { return "" }

var eventType = regexp.MustCompile(`^(\*|[a-z]+(_[a-z]+)*)$`)

// CheckEventType: an event type (payment_captured ...) or *.
func (Dialect) CheckEventType(e string) string {
	if !eventType.MatchString(e) {
		return "is not a Checkout.com event type (payment_approved, payment_captured, payment_refunded, *)"
	}
	return ""
}

// SignsTime: Cko-Signature covers the body only.
func (Dialect) SignsTime() bool { return false }

// OwnsPath: Checkout.com's payments live at /payments, with no version.
func (Dialect) OwnsPath(path string) bool {
	return path == "/payments" || strings.HasPrefix(path, "/payments/pay_")
}

// SuccessEvent is the event a payment that succeeded raises.
func (Dialect) SuccessEvent() string { return EventCaptured }

type webhookWire struct{}

// NewSecret is a fresh signature key.
func (webhookWire) NewSecret() string { return token(32) }

// Request posts body with its Cko-Signature: HMAC-SHA256 of the raw body
// under secret, hex; an empty secret sends none.
func (webhookWire) Request(ctx context.Context, url string, body []byte, secret string, _ time.Time) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("Cko-Signature", Sign(body, secret))
	}
	return req, nil
}

// Accepted: any 2xx acknowledges a webhook.
func (webhookWire) Accepted(a core.Answer) bool { return a.Status >= 200 && a.Status < 300 }

// Schedule is Checkout.com's retry table: up to eight more attempts, 5
// min, 10 min, 15 min, 30 min, 1 h, 4 h, 12 h and 12 h after the one before.
func (webhookWire) Schedule() core.Schedule {
	steps := []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 4 * time.Hour, 12 * time.Hour, 12 * time.Hour}
	var horizon time.Duration
	for _, s := range steps {
		horizon += s
	}
	return core.Schedule{Base: steps[0], Steps: steps, Horizon: horizon, Timeout: 10 * time.Second}
}

// Sign is the Cko-Signature of body under key.
func Sign(body []byte, key string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func token(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
