package adyen

import (
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Payment is what Adyen keeps of one payment: the core's payment under its
// pspReference, with the merchant's reference and account.
type Payment struct {
	core.Payment
	Reference       string
	MerchantAccount string
}

// Core is the core's part.
func (p *Payment) Core() *core.Payment { return &p.Payment }

// API is Adyen's Checkout operations over a PSP's core: each parses a
// request into one of core.Ops' operations and renders its outcome as
// Adyen does, raising the notifications Adyen raises. It moves no money
// and checks no state itself.
type API struct {
	Ops core.Ops
	// Book holds the payments; Ops.Lock guards it.
	Book *core.Book[*Payment]
	// Merchant is the merchant account requests must name ("" takes any).
	Merchant string
	// Emit hands a notification to the webhook endpoints' workers; called
	// after the lock is released (core.Hooks.Published).
	Emit func(core.Event)
}

// Answer is an operation's answer: the reply, and what the faults after
// the effect make of it (the writer loses, holds or replaces it).
type Answer struct {
	Reply core.Reply
	After core.AfterEffect
	// Began says the operation ran (its money moved or was refused by the
	// payment): only then is the answer kept under its idempotency key.
	Began bool
}

// emit raises it about a payment of amount (its own amount, whatever the
// item's: a harness holds a payment's events by the payment's amount).
func (a *API) emit(it Item, amount int64, t core.Target) func() {
	return func() {
		if a.Emit != nil {
			a.Emit(&Event{Item: it, Target: t, PaymentAmount: amount})
		}
	}
}

func (a *API) now() time.Time { return a.Ops.Now() }

// Event is one notification item as the delivery engine carries it.
type Event struct {
	Item   Item
	Target core.Target
	// PaymentAmount is the amount of the payment the item is about.
	PaymentAmount int64
}

// EventID is the item's identity as Adyen tells receivers to deduplicate:
// event code, pspReference and success.
func (e *Event) EventID() string { return e.Item.DedupKey() }

// EventType is the event code.
func (e *Event) EventType() string { return e.Item.EventCode }

// FaultTarget is what webhook faults match on.
func (e *Event) FaultTarget() core.Target { return e.Target }
