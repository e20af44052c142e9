// Package checkout is Checkout.com's wire over fakepsp/core, as its
// documentation describes it (read 2026-12-06): JSON bodies, the secret key
// in Authorization ("sk_..." or "Bearer sk_..."), the Cko-Idempotency-Key
// header (a key's answer kept 24 hours, and only when the request was
// processed: a 2xx; a second request while the first runs is 409), payments
// answered 201 with approved and a status, captures, refunds and voids
// answered 202 with an action id, and webhooks signed in a Cko-Signature
// header (HMAC-SHA256 of the raw body, hex), retried up to eight times.
//
// Sources:
//   - https://www.checkout.com/docs/developer-resources/api/idempotency
//   - https://support.checkout.com/hc/en-us/articles/24570669653010 (409, not 429, for a key in use)
//   - https://www.checkout.com/docs/payments/accept-payments/accept-a-payment-using-the-api
//   - https://www.checkout.com/docs/developer-resources/webhooks/manage-webhooks/set-up-your-webhook-receiver
//   - https://www.checkout.com/docs/workflows (the retry intervals; at least once, any order)
//   - https://api-reference.checkout.com (the payment request's fields)
package checkout
