package scenario

import (
	"context"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// Order is what idemcheck put in one payment request: its order id, its
// amount, and any other amount sent under the same order (A5's mismatch).
type Order struct {
	ID     string
	Amount int64
	Alt    []int64
}

// How a charge was attributed, for the reports.
const (
	ByMetadata = "metadata"
	ByRequest  = "request" // the PSP request that made it carried the order id
	ByAmount   = "amount"
)

// Attribution maps order ids to their PSP charges.
type Attribution struct {
	By map[string][]history.Op
	// How counts the charges attributed each way.
	How map[string]int
	// Unattributed are charges no order explains: reported, never dropped.
	Unattributed []history.Op
}

// Attribute assigns each charge to the order whose id the charge's metadata
// carries, else to the order whose id was in the PSP request that made the
// charge (same idempotency key, or the answer naming the charge), else to the
// one order of the same amount. It needs no server.
func Attribute(charges []history.Op, ex []pspfront.Exchange, orders []Order) Attribution {
	a := Attribution{By: map[string][]history.Op{}, How: map[string]int{}}
	inText := func(s string) string {
		for _, o := range orders {
			if strings.Contains(s, o.ID) {
				return o.ID
			}
		}
		return ""
	}
	for _, c := range charges {
		id, how := "", ""
		for _, v := range sortedValues(c.Input.Metadata) {
			if id = inText(v); id != "" {
				how = ByMetadata
				break
			}
		}
		if id == "" {
			for _, x := range ex {
				sameKey := c.Input.PSPKey != "" && x.Key == c.Input.PSPKey
				names := c.Output != nil && c.Output.ChargeID != "" && strings.Contains(x.RespBody, c.Output.ChargeID)
				if sameKey || names {
					if id = inText(x.Body); id != "" {
						how = ByRequest
						break
					}
				}
			}
		}
		if id == "" && c.Input.Amount != nil {
			var hits []string
			for _, o := range orders {
				if o.Amount == *c.Input.Amount || slices.Contains(o.Alt, *c.Input.Amount) {
					hits = append(hits, o.ID)
				}
			}
			if len(hits) == 1 {
				id, how = hits[0], ByAmount
			}
		}
		if id == "" {
			a.Unattributed = append(a.Unattributed, c)
			continue
		}
		a.By[id] = append(a.By[id], c)
		a.How[how]++
	}
	return a
}

func sortedValues(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// track registers what a check sent under an order id.
func (e *Env) track(check string, in Intent, intent string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.orders == nil {
		e.orders = map[string]*tracked{}
	}
	order := in.Meaning.OrderID
	if first, ok := e.orderOf[intent]; ok && intent != "" {
		// Another meaning under a key already used (a mismatch): what it
		// may have charged belongs to the key's first order.
		order = first
	}
	tr, ok := e.orders[order]
	if !ok {
		tr = &tracked{check: check, amount: in.Meaning.Amount, intents: map[string]bool{}}
		e.orders[order] = tr
		e.order = append(e.order, order)
	}
	if intent != "" {
		if e.orderOf == nil {
			e.orderOf = map[string]string{}
		}
		if _, ok := e.orderOf[intent]; !ok {
			e.orderOf[intent] = order
		}
	}
	if in.Meaning.Amount != tr.amount && !slices.Contains(tr.alt, in.Meaning.Amount) {
		tr.alt = append(tr.alt, in.Meaning.Amount)
	}
	if intent != "" {
		tr.intents[intent] = true
	}
}

// Orders lists every order the run sent, in first-sent order.
func (e *Env) Orders() []Order {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Order, 0, len(e.order))
	for _, id := range e.order {
		tr := e.orders[id]
		out = append(out, Order{ID: id, Amount: tr.amount, Alt: slices.Clone(tr.alt)})
	}
	return out
}

// attribute reads the PSP's charges and attributes them to the run's orders.
func (e *Env) attribute(ctx context.Context) (Attribution, bool) {
	if e.Effects == nil {
		return Attribution{}, false
	}
	all, err := e.Effects.Charges(ctx)
	if err != nil || all == nil {
		return Attribution{}, false
	}
	var ex []pspfront.Exchange
	if e.Front != nil {
		ex = e.Front.Exchanges()
	}
	return Attribute(all, ex, e.Orders()), true
}
