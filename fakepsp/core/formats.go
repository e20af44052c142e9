package core

// Formats is what a dialect says of the values a user configures for it:
// each check returns what is wrong with the value ("" when it is fine),
// for the caller to put behind the flag or field that gave it.
type Formats interface {
	// CheckSecretKey checks an API key the user fixes.
	CheckSecretKey(key string) string
	// CheckWebhookSecret checks a webhook signing secret the user fixes.
	CheckWebhookSecret(secret string) string
	// CheckEventType checks an event type a webhook endpoint subscribes to.
	CheckEventType(name string) string
	// SignsTime says whether a delivery's signature carries the time it
	// was made (Stripe's t=): only then can a receiver refuse a replayed
	// payload as stale, and a check send one.
	SignsTime() bool
	// OwnsPath says whether a request path is one of this PSP's API
	// routes: a probe learns which PSP a service calls from its first
	// request.
	OwnsPath(path string) bool
	// SuccessEvent is the event type a payment that succeeded raises
	// (payment_intent.succeeded, AUTHORISATION).
	SuccessEvent() string
}
