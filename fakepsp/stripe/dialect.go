package stripe

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

func init() { core.Register(Dialect{}) }

// Dialect is Stripe's wire as core.Dialect asks for it.
type Dialect struct{}

// Name is "stripe".
func (Dialect) Name() string { return "stripe" }

// Keys are Stripe's Idempotency-Key rules.
func (Dialect) Keys() core.KeyRules { return Keys }

// Credential reads "Authorization: Bearer sk_..." or Basic auth with the key
// as the user name, as Stripe accepts both.
func (Dialect) Credential(r *http.Request) (string, bool) {
	a := r.Header.Get("Authorization")
	switch {
	case strings.HasPrefix(a, "Bearer "):
		k := strings.TrimSpace(strings.TrimPrefix(a, "Bearer "))
		return k, k != ""
	case strings.HasPrefix(a, "Basic "):
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "Basic "))
		if err != nil {
			return "", false
		}
		user, _, _ := strings.Cut(string(raw), ":")
		return user, user != ""
	}
	return "", false
}

// NewCredential is a fresh test-mode secret key, "sk_test_...".
func (Dialect) NewCredential() string { return "sk_test_" + randToken(24) }

// Redact shows a secret key as Stripe's errors show it.
func Redact(k string) string {
	if len(k) <= 12 {
		return "sk_****"
	}
	return k[:8] + "****" + k[len(k)-4:]
}

// Webhooks is Stripe's webhook wire.
func (Dialect) Webhooks() core.WebhookWire { return webhookWire{} }

type webhookWire struct{}

// NewSecret is a fresh endpoint secret, "whsec_...".
func (webhookWire) NewSecret() string { return "whsec_" + randToken(32) }

func (webhookWire) Request(ctx context.Context, url string, body []byte, secret string, at time.Time) (*http.Request, error) {
	var sig string
	if secret != "" {
		sig = SignatureHeader(secret, at, body)
	}
	return DeliveryRequest(ctx, url, body, sig)
}

func (webhookWire) Accepted(a core.Answer) bool { return Accepted(a) }

func randToken(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

var eventType = regexp.MustCompile(`^(\*|[a-z_]+\.(\*|[a-z_.]+))$`)

// CheckSecretKey: Stripe's test-mode secret keys start with sk_test_.
func (Dialect) CheckSecretKey(k string) string {
	if !strings.HasPrefix(k, "sk_test_") {
		return "must start with sk_test_ (a Stripe test-mode secret key)"
	}
	return ""
}

// CheckWebhookSecret: Stripe's endpoint secrets start with whsec_.
func (Dialect) CheckWebhookSecret(s string) string {
	if !strings.HasPrefix(s, "whsec_") {
		return "must start with whsec_ (a Stripe webhook signing secret)"
	}
	return ""
}

// CheckEventType: a Stripe event type, a family with .*, or *.
func (Dialect) CheckEventType(e string) string {
	if !eventType.MatchString(e) {
		return fmt.Sprintf("%q is not a Stripe event type (payment_intent.succeeded, charge.*, *)", e)
	}
	return ""
}

// SignsTime: Stripe-Signature carries t=, the time it was signed.
func (Dialect) SignsTime() bool { return true }

// OwnsPath: Stripe's API lives under /v1/.
func (Dialect) OwnsPath(path string) bool { return strings.HasPrefix(path, "/v1/") }

// SuccessEvent is the event a payment that succeeded raises.
func (Dialect) SuccessEvent() string { return "payment_intent.succeeded" }
