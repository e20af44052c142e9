package fakepsp

import "github.com/idemcheck/idemcheck/fakepsp/core"

// Call is one API request the PSP answered (or dropped), from its own log
// (core.Call, the same for every dialect).
type Call = core.Call

// Calls returns the PSP's log of API calls, in the order they were answered.
func (p *PSP) Calls() []Call { return p.calls.All() }

// CallsWithKey returns the calls that carried the idempotency key.
func (p *PSP) CallsWithKey(key string) []Call {
	var out []Call
	for _, c := range p.Calls() {
		if c.IdempotencyKey == key {
			out = append(out, c)
		}
	}
	return out
}

// CallCount is how many calls were logged, read from memory: a count a
// failed read of the log on disk cannot shorten.
func (p *PSP) CallCount() int { return p.calls.Len() }
