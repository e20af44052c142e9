package fakepsp

import (
	"time"

	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// Stripe's names in this package's face, kept for the callers that speak
// Stripe (conform's webhook checks, the fixtures). With dialects.go it is
// the only file of the facade that imports a dialect
// (TestFacadeIsDialectNeutral).

// DefaultAPIVersion is the version every account answers in, stripe-go's
// pinned one (fakepsp/stripe/versions.go says how versions are handled).
const DefaultAPIVersion = wire.APIVersion

// TypeMatches says whether an endpoint subscribed to filters gets an event
// of type typ (fakepsp/stripe's TypeMatches).
func TypeMatches(filters []string, typ string) bool { return wire.TypeMatches(filters, typ) }

// SignatureHeader is the Stripe-Signature of body signed with secret at t.
func SignatureHeader(secret string, t time.Time, body []byte) string {
	return wire.SignatureHeader(secret, t, body)
}
