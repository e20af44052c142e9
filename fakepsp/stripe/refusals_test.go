package stripe

import (
	"encoding/json"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// TestRefusalsWordForWord pins each refusal to the status and body fakepsp
// sent before the seam moved them here (the strings are Stripe's).
func TestRefusalsWordForWord(t *testing.T) {
	for _, c := range []struct {
		r      core.Refusal
		status int
		body   string
	}{
		{core.Refusal{Kind: core.RefuseNoCredential}, 401,
			`{"error":{"type":"invalid_request_error","message":"You did not provide an API key. Provide it in the Authorization header (Authorization: Bearer YOUR_SECRET_KEY)."}}`},
		{core.Refusal{Kind: core.RefuseBadCredential, Key: "sk_test_0123456789abcdef"}, 401,
			`{"error":{"type":"invalid_request_error","code":"api_key_invalid","message":"Invalid API Key provided: sk_test_****cdef"}}`},
		{core.Refusal{Kind: core.RefuseBadCredential, Key: "sk_short"}, 401,
			`{"error":{"type":"invalid_request_error","code":"api_key_invalid","message":"Invalid API Key provided: sk_****"}}`},
		{core.Refusal{Kind: core.RefuseRateLimited}, 429,
			`{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests hit the API too quickly. We recommend an exponential backoff of your requests."}}`},
		{core.Refusal{Kind: core.RefuseInternal}, 500,
			`{"error":{"type":"api_error","message":"An unknown error occurred while processing your request."}}`},
		{core.Refusal{Kind: core.RefuseKeyTooLong}, 400,
			`{"error":{"type":"invalid_request_error","code":"idempotency_key_too_long","message":"Idempotency-Key must be at most 255 characters long.","param":"Idempotency-Key"}}`},
		{core.Refusal{Kind: core.RefuseKeyMismatch, Key: "k1", Scope: "POST /v1/refunds", FirstScope: "POST /v1/refunds"}, 400,
			`{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'k1' if you meant to execute a different request."}}`},
		{core.Refusal{Kind: core.RefuseKeyMismatch, Key: "k1", Scope: "POST /v1/refunds", FirstScope: "POST /v1/payment_intents"}, 400,
			`{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used for the same endpoint they were first used for ('POST /v1/payment_intents' vs 'POST /v1/refunds'). Try using a key other than 'k1' if you meant to execute a different request."}}`},
		{core.Refusal{Kind: core.RefuseKeyInUse, Key: "k1"}, 409,
			`{"error":{"type":"invalid_request_error","code":"idempotency_key_in_use","message":"There is currently another in-progress request using this Idempotent Key ('k1'); please try again later."}}`},
	} {
		rep := Dialect{}.Refuse(c.r)
		body, err := json.Marshal(rep.Body)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status != c.status || string(body) != c.body {
			t.Errorf("refusal %d: got %d %s\nwant %d %s", c.r.Kind, rep.Status, body, c.status, c.body)
		}
	}
}

func TestRegistered(t *testing.T) {
	d, err := core.Lookup("stripe")
	if err != nil || d.Name() != "stripe" || d.Keys().Header != "Idempotency-Key" || d.Keys().MaxLen != 255 {
		t.Fatalf("Lookup(stripe) = %v, %v", d, err)
	}
}
