package fakepsp

import "github.com/idemcheck/idemcheck/fakepsp/core"

// The charge point: the core's effect point (core/effectpoint.go) in this
// call's terms.

// beforeCharge returns an answer to give instead of charging, or nil.
func (c *call) beforeCharge(t target) *response {
	if c.p.faults.BeforeEffect(c.p.ctx, t) {
		r := apiError()
		return &r
	}
	return nil
}

// afterCharge returns an answer to give instead of the real one, or nil; it
// also arms lose/hold for the write.
func (c *call) afterCharge(t target) *response {
	a := c.p.faults.AfterEffect(c.p.ctx, t)
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

// after is what the faults after an effect (core.Ops' Outcome.After) make
// of the answer: an answer to give instead of the real one, or nil; it also
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
