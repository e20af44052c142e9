package fakepsp

// The charge point: where the faults around an effect (a charge or a refund)
// fire. Before: gate, delay, 500 (nothing charged). After: delay, 500 (the
// charge stands), lose or hold the reply (the answer is saved first).

// beforeCharge returns an answer to give instead of charging, or nil.
func (c *call) beforeCharge(t target) *response {
	fs := c.p.faults
	if f := fs.Fire(GateBeforeCharge, t); f != nil {
		select {
		case <-f.Released():
		case <-c.p.ctx.Done():
			r := apiError()
			return &r
		}
	}
	if f := fs.Fire(DelayBeforeCharge, t); f != nil && !c.p.sleep(f.Spec().Delay) {
		r := apiError()
		return &r
	}
	if fs.Fire(Error500BeforeCharge, t) != nil {
		r := apiError()
		return &r
	}
	return nil
}

// afterCharge returns an answer to give instead of the real one, or nil; it
// also arms lose/hold for the write.
func (c *call) afterCharge(t target) *response {
	fs := c.p.faults
	if f := fs.Fire(DelayAfterCharge, t); f != nil {
		c.p.sleep(f.Spec().Delay)
	}
	var out *response
	if fs.Fire(Error500AfterCharge, t) != nil {
		r := apiError()
		out = &r
	}
	if fs.Fire(LoseReply, t) != nil {
		c.lose = true
	} else if f := fs.Fire(HoldReply, t); f != nil {
		c.hold = f
	}
	return out
}
