package scenario

import (
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// group is the intents of one order id that a check judges together, and
// the other meanings sent under their keys (mismatches, A5).
type group struct {
	order    string
	amount   int64
	currency string
	alt      []int64 // amounts of mismatches that changed the amount
	altCur   []string
	// alike counts the mismatches a charge cannot tell from the order
	// (order id or payment method changed): same amount, same currency.
	alike   int
	intents []Intent
	expect  int
}

func groups(ins []Intent, expect map[int64]int) []*group {
	var out []*group
	by := map[string]*group{}
	variantOf := func(in Intent) *group {
		for _, g := range out {
			for _, x := range g.intents {
				if x.Key == in.Key && x.Caller == in.Caller && x.Meaning != in.Meaning {
					return g
				}
			}
		}
		return nil
	}
	for _, in := range ins {
		if g := variantOf(in); g != nil {
			g.addVariant(in.Meaning)
			continue // another meaning under a key already here (A5)
		}
		g := by[in.Meaning.OrderID]
		if g == nil {
			g = &group{order: in.Meaning.OrderID, amount: in.Meaning.Amount, currency: in.Meaning.Currency}
			by[g.order] = g
			out = append(out, g)
		}
		if in.Meaning.Amount != g.amount {
			g.addVariant(in.Meaning)
			continue // another amount of an order already here
		}
		dup := false
		for _, x := range g.intents {
			dup = dup || (x.Key == in.Key && x.Caller == in.Caller)
		}
		if !dup {
			g.intents = append(g.intents, in)
		}
	}
	for _, g := range out {
		g.expect = len(g.intents)
		if x, ok := expect[g.amount]; ok {
			g.expect = x
		}
	}
	return out
}

// addVariant files a mismatch by what a PSP charge shows of it.
func (g *group) addVariant(m driver.Meaning) {
	switch {
	case m.Amount != g.amount:
		g.alt = append(g.alt, m.Amount)
	case m.Currency != "" && !strings.EqualFold(m.Currency, g.currency):
		g.altCur = append(g.altCur, strings.ToLower(m.Currency))
	default:
		g.alike++
	}
}

// sameCurrency says whether a charge is in the order's currency (a charge or
// an order that names none matches any).
func (g *group) sameCurrency(c history.Op) bool {
	return c.Input.Currency == "" || g.currency == "" || strings.EqualFold(c.Input.Currency, g.currency)
}
