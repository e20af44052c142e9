package core

// Payment is one payment, whatever its PSP calls it (Stripe's PaymentIntent,
// Adyen's payment under its pspReference): where it stands, how it is
// captured, the method it was confirmed with, and its money (what was
// authorized, captured, released and refunded). Its ids and status words
// are the dialect's; these fields and their moves are the same for every
// PSP. Not safe for concurrent use: Ops.Lock guards it.
type Payment struct {
	ID       string
	State    State
	Manual   bool     // captured by a later request, not at confirmation
	Method   string   // the payment method it was (or will be) confirmed with
	Metadata Metadata // compact (Metadata.Map renders it)
	Created  int64    // unix seconds, the PSP's clock
	// AttemptID names its latest confirmation attempt (Stripe's latest
	// charge), successful or declined; AttemptAt is when it was made.
	AttemptID  string
	AttemptAt  int64
	CanceledAt int64

	Amount     int64
	Currency   string
	Received   int64  // captured
	Capturable int64  // authorized, not yet captured
	Released   int64  // authorized, never captured: a partial capture's rest, or a cancel
	Refunded   int64  // refunded
	ChargeKey  string // the idempotency key of the request that moved the money
}

// State is where a payment stands. A dialect names each state in its own
// words (Stripe: requires_payment_method ... succeeded).
type State uint8 // a byte: with Manual beside it, a Stripe intent is 224 bytes, not 232

// The states a payment walks through.
const (
	StateNoMethod   State = iota + 1 // created without a method, or its last method declined
	StateHasMethod                   // a method, not yet confirmed
	StateAuthorized                  // confirmed for a manual capture: the amount is held
	StateSucceeded                   // the money moved (captured at once or later)
	StateCanceled                    // canceled; whatever was held is released
)

// Confirmable: a confirmation may run (a declined method may be replaced).
func (s State) Confirmable() bool { return s == StateNoMethod || s == StateHasMethod }

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

// UpdateMetadata merges upd into the metadata: a nil value deletes its key,
// and a "" key clears every key first. The metadata is replaced, never
// changed in place: renderings made earlier (search's versions) share the
// old one.
func (p *Payment) UpdateMetadata(upd map[string]*string) {
	if len(upd) == 0 {
		return
	}
	md := map[string]string{}
	if _, clear := upd[""]; !clear {
		md = p.Metadata.Map()
		if md == nil {
			md = map[string]string{}
		}
	}
	for k, v := range upd {
		switch {
		case k == "":
		case v == nil:
			delete(md, k)
		default:
			md[k] = *v
		}
	}
	p.Metadata = MetadataOf(md)
}
