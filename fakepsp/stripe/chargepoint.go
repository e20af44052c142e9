package stripe

import "github.com/idemcheck/idemcheck/fakepsp/core"

// The charge point: the core's effect point (fakepsp/core/effectpoint.go, run by
// core.Ops for every payment operation) in this call's terms.

// after is what the faults after an effect (core.Outcome.After) make of
// the answer: an answer to give instead of the real one, or nil; it also
// arms lose/hold for the write.
func (c *call) after(a core.AfterEffect) *response {
	if a.Lose {
		c.lose = true
	}
	if a.Hold != nil {
		c.hold = a.Hold
	}
	if a.Refuse {
		r := apiError()
		return &r
	}
	return nil
}
