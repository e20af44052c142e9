package core

// Payment is the money of one payment, whatever its PSP calls it (Stripe's
// PaymentIntent, Adyen's payment under its pspReference): what was
// authorized, captured, released and refunded. Its status names stay the
// dialect's; these amounts and their moves are the same for every PSP.
// Not safe for concurrent use: the PSP guards it with its own lock.
type Payment struct {
	Amount     int64
	Currency   string
	Received   int64  // captured
	Capturable int64  // authorized, not yet captured
	Released   int64  // authorized, never captured: a partial capture's rest, or a cancel
	Refunded   int64  // refunded
	ChargeKey  string // the idempotency key of the request that moved the money
}

// Authorize holds the whole amount for a later capture; nothing moves yet.
func (p *Payment) Authorize() { p.Capturable = p.Amount }

// Settle moves the whole amount at once (automatic capture) under key.
func (p *Payment) Settle(key string) { p.Received, p.ChargeKey = p.Amount, key }

// Capture moves amount of the authorization under key and releases the rest.
// The caller has checked amount against Capturable.
func (p *Payment) Capture(amount int64, key string) {
	p.Received, p.Capturable, p.Released = amount, 0, p.Amount-amount
	p.ChargeKey = key
}

// Cancel releases what is still authorized.
func (p *Payment) Cancel() {
	p.Released += p.Capturable
	p.Capturable = 0
}

// Refundable is what can still be refunded: captured less refunded.
func (p *Payment) Refundable() int64 { return p.Received - p.Refunded }

// Refund returns amount; the caller has checked it against Refundable.
func (p *Payment) Refund(amount int64) { p.Refunded += amount }
