// Package adyen is Adyen's wire over fakepsp/core, as Adyen's Checkout API
// (v71) and its standard webhooks document it: JSON bodies, an API key in
// X-API-Key, the Idempotency-Key header (64 characters at most, kept at
// least 31 days, one answer per key whatever the body), Adyen's error body
// ({status, errorCode, message, errorType}), and notifications: a JSON batch
// of NotificationRequestItems, each signed with HMAC-SHA256 under a
// hex-encoded key in additionalData.hmacSignature, delivered at least once
// and retried on Adyen's documented table until a 2xx answer.
//
// Sources (read 2026-12-06):
//   - https://docs.adyen.com/development-resources/api-idempotency
//     (key length, retention, concurrent use: 422 or 409 with errorCode 704
//     and a transient-error header)
//   - https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures
//     (the eight fields, in order, joined by ':'; an empty field is empty)
//   - https://docs.adyen.com/development-resources/webhooks/troubleshoot
//     (three retries at 9 s, 18 s and 27 s, then 2 min ... 8 h, for 30 days)
//   - https://docs.adyen.com/development-resources/webhooks/handle-webhook-events
//     (accept with any 2xx; duplicates are possible: deduplicate on
//     eventCode and pspReference)
//   - https://docs.adyen.com/api-explorer/Checkout/71 (the payment and
//     modification requests and responses)
package adyen
