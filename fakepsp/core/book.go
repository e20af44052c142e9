package core

// Record is what a dialect keeps of one payment: the core's Payment and
// whatever only its PSP shows (Stripe's description, customer, search
// versions).
type Record interface {
	Core() *Payment
}

// Book is one account's payments, by id and in creation order: the read
// of a payment by id every dialect answers (Stripe's GET
// /v1/payment_intents/{id}, a capture or refund naming it). Ops.Lock
// guards it.
type Book[R Record] struct {
	byID map[string]R
	seq  []R
}

// NewBook is an empty book.
func NewBook[R Record]() *Book[R] { return &Book[R]{byID: map[string]R{}} }

// Add files r under its payment's ID.
func (b *Book[R]) Add(r R) {
	b.byID[r.Core().ID] = r
	b.seq = append(b.seq, r)
}

// Get is the record of the payment id names; the zero R when none.
func (b *Book[R]) Get(id string) R { return b.byID[id] }

// Has says whether id names a payment of the book.
func (b *Book[R]) Has(id string) bool { _, ok := b.byID[id]; return ok }

// All lists the records in creation order; the caller does not change it.
func (b *Book[R]) All() []R { return b.seq }

// Read is a copy of the payment id names, in the core's words.
func (b *Book[R]) Read(id string) (Payment, bool) {
	r, ok := b.byID[id]
	if !ok {
		return Payment{}, false
	}
	return *r.Core(), true
}
