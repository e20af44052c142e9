package adyen

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
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

// CheckKeys refuses an HMAC key that is not 32 bytes of hex, the form of
// Adyen's (a configured API key may be any text).
func (Dialect) CheckKeys(_, webhookSecret string) error {
	if webhookSecret == "" {
		return nil
	}
	if b, err := hex.DecodeString(webhookSecret); err != nil || len(b) != 32 {
		return errors.New("--webhook-secret must be an Adyen HMAC key: 64 hex digits")
	}
	return nil
}
