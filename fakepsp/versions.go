package fakepsp

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/stripe/stripe-go/v85"
)

// API versions. The account's default version is stripe-go's pinned
// stripe.APIVersion (the library fakepsp is checked against). A request
// may name another in Stripe-Version, and a webhook endpoint may be created
// with api_version, as Stripe allows; a string that is not a version is
// refused as Stripe refuses it. fakepsp renders one shape, the default
// version's, whatever version is named: what a named version changes is
// the Stripe-Version answer header and the api_version of the events sent
// to an endpoint created with it (so a library of that version verifies
// them). Field differences between versions are not modelled (docs).

// DefaultAPIVersion is the version every account answers in.
const DefaultAPIVersion = stripe.APIVersion

// apiVersionRE: Stripe's version strings, "2024-06-20" or
// "2026-03-25.dahlia" (a date and a release train).
var apiVersionRE = regexp.MustCompile(`^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(\.[a-z]+)?$`)

func validAPIVersion(v string) bool { return apiVersionRE.MatchString(v) }

func invalidVersion(v string) response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error",
		Message: "Invalid Stripe API version: " + v})
}

// requestVersion is the version a request asks for (Stripe-Version), or
// the default; ok is false for a string that is no version.
func requestVersion(r *http.Request) (string, bool) {
	v := r.Header.Get("Stripe-Version")
	if v == "" {
		return DefaultAPIVersion, true
	}
	return v, validAPIVersion(v)
}

// rawFor is ev as an endpoint of version v receives it.
func (ev *event) rawFor(v string) []byte {
	if v == "" || v == DefaultAPIVersion {
		return ev.raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.raw, &m) != nil {
		return ev.raw
	}
	m["api_version"], _ = json.Marshal(v)
	b, err := json.Marshal(m)
	if err != nil {
		return ev.raw
	}
	return b
}
