package adyen

import (
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

// Dialect is Adyen's wire as core.Dialect asks for it.
type Dialect struct{}

// Keys are Adyen's Idempotency-Key rules. Adyen returns the first answer
// to any later request under a key, whatever its endpoint or body, so a
// dialect handler binds keys to no scope and no fingerprint (Bind).
var Keys = core.KeyRules{Header: "Idempotency-Key", MaxLen: 64, Window: 31 * 24 * time.Hour}

// Bind is the scope and fingerprint Adyen binds a key to: none. A request
// that reuses a key with another body gets the first request's answer;
// Adyen documents no mismatch error.
func Bind(*http.Request, []byte) (scope, fingerprint string) { return "", "" }

// Name is "adyen".
func (Dialect) Name() string { return "adyen" }

// Keys are Adyen's idempotency-key rules.
func (Dialect) Keys() core.KeyRules { return Keys }

// Credential reads the API key from X-API-Key, or a web service user's
// Basic credentials (ws@Company.X:password), the two ways Adyen accepts.
func (Dialect) Credential(r *http.Request) (string, bool) {
	if k := strings.TrimSpace(r.Header.Get("X-API-Key")); k != "" {
		return k, true
	}
	a := r.Header.Get("Authorization")
	if strings.HasPrefix(a, "Basic ") {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "Basic "))
		if err != nil {
			return "", false
		}
		user, _, _ := strings.Cut(string(raw), ":")
		return user, user != ""
	}
	return "", false
}

// NewCredential is a fresh API key in the shape of Adyen's ("AQE" and a
// long token); receivers treat it as opaque.
func (Dialect) NewCredential() string { return "AQE" + token(29) + "." + token(40) }

// Webhooks is Adyen's standard-webhook wire.
func (Dialect) Webhooks() core.WebhookWire { return webhookWire{} }

func token(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// CheckSecretKey: Adyen's API keys are opaque; any non-empty text.
func (Dialect) CheckSecretKey(string) string { return "" }

// CheckWebhookSecret: an Adyen HMAC key is 32 bytes in hex.
func (Dialect) CheckWebhookSecret(s string) string {
	if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
		return "must be an Adyen HMAC key: 64 hex digits"
	}
	return ""
}

var eventCode = regexp.MustCompile(`^(\*|[A-Z][A-Z_]*)$`)

// CheckEventType: an Adyen event code (AUTHORISATION, CAPTURE ...) or *.
func (Dialect) CheckEventType(e string) string {
	if !eventCode.MatchString(e) {
		return fmt.Sprintf("%q is not an Adyen event code (AUTHORISATION, CAPTURE, REFUND, *)", e)
	}
	return ""
}

// SignsTime: Adyen's HMAC covers no time; a replayed payload is a valid one.
func (Dialect) SignsTime() bool { return false }

var checkoutPath = regexp.MustCompile(`^/v(3[7-9]|[4-9][0-9])/payments(/|$)`)

// OwnsPath: the Checkout API's payments, under a version from v37 on
// (so never Stripe's /v1/).
func (Dialect) OwnsPath(path string) bool { return checkoutPath.MatchString(path) }

// SuccessEvent is the event a payment that succeeded raises.
func (Dialect) SuccessEvent() string { return "AUTHORISATION" }
