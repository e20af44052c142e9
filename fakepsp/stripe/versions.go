package stripe

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	stripego "github.com/stripe/stripe-go/v85"
)

// API versions. The account's default version is stripe-go's pinned
// stripego.APIVersion (the library fakepsp is checked against). A request
// may name another in Stripe-Version, and a webhook endpoint may be created
// with api_version, as Stripe allows; a string that is not a version is
// refused as Stripe refuses it. fakepsp renders one shape, the default
// version's, whatever version is named: what a named version changes is
// the Stripe-Version answer header and the api_version of the events sent
// to an endpoint created with it (so a library of that version verifies
// them). Field differences between versions are not modelled (docs).

// APIVersion is the version every account answers in.
const APIVersion = stripego.APIVersion

// apiVersionRE: Stripe's version strings, "2024-06-20" or
// "2026-03-25.dahlia" (a date and a release train).
var apiVersionRE = regexp.MustCompile(`^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(\.[a-z]+)?$`)

// ValidAPIVersion reports a string Stripe takes as an API version.
func ValidAPIVersion(v string) bool { return apiVersionRE.MatchString(v) }

// InvalidVersion is Stripe's answer to a Stripe-Version that is no version.
func InvalidVersion(v string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error",
		Message: "Invalid Stripe API version: " + v})
}

// RequestVersion is the version a request asks for (Stripe-Version), or
// the default; ok is false for a string that is no version.
func RequestVersion(r *http.Request) (string, bool) {
	v := r.Header.Get("Stripe-Version")
	if v == "" {
		return APIVersion, true
	}
	return v, ValidAPIVersion(v)
}

// EventFor is an event's JSON, raw, as an endpoint of version v receives it.
func EventFor(raw []byte, v string) []byte {
	if v == "" || v == APIVersion {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	m["api_version"], _ = json.Marshal(v)
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}
