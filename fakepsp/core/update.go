package core

// Updatable: the amount, currency, method and capture mode may change
// (not once confirmed); metadata may change in any state.
func (s State) Updatable() bool { return s == StateNoMethod || s == StateHasMethod }

// Update changes a payment before it is confirmed; zero fields keep theirs.
type Update struct {
	Amount   int64
	Currency string
	// Method gives the payment a method: one that had none now has one
	// to confirm.
	Method   string
	Metadata map[string]*string // Payment.UpdateMetadata
}

// Update applies in to p under the lock, then runs the dialect's hooks.
// No money moves, so no fault of the effect point fires; the dialect has
// checked Updatable for the fields it was asked to change.
func (o Ops) Update(p *Payment, in Update, h Hooks) Outcome {
	o.Lock.Lock()
	if in.Amount != 0 {
		p.Amount = in.Amount
	}
	if in.Currency != "" {
		p.Currency = in.Currency
	}
	if in.Method != "" {
		p.Method = in.Method
		if p.State == StateNoMethod {
			p.State = StateHasMethod
		}
	}
	p.UpdateMetadata(in.Metadata)
	out := Outcome{State: p.State}
	h.locked(out)
	o.Lock.Unlock()
	h.published()
	return out
}
