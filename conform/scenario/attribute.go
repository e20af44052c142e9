package scenario

import (
	"slices"

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
// one order of the same amount. When several orders' ids are in one text,
// the first in orders wins; when several requests qualify, the first in ex.
// It needs no server, and its cost grows with the size of its inputs, not
// their product: the judge calls it on a whole run (attribute_naive_test.go
// keeps the direct version it must agree with).
func Attribute(charges []history.Op, ex []pspfront.Exchange, orders []Order) Attribution {
	a, _ := newAttributor(orders).attribute(charges, ex)
	return a
}

// attributor is the orders' side of an attribution: the index of their ids
// and amounts, which Env.attribute keeps for a round to hold new exchanges
// against (attribute_grow.go).
type attributor struct {
	orders  []Order
	byID    *textIndex
	amounts map[int64]amountHits
}

func newAttributor(orders []Order) *attributor {
	ids := make([]string, len(orders))
	for i, o := range orders {
		ids[i] = o.ID
	}
	return &attributor{orders: orders, byID: newTextIndex(ids), amounts: amountIndex(orders)}
}

// inText is the first order whose id occurs in s, or "".
func (t *attributor) inText(s string) string {
	if r := t.byID.first(s); r >= 0 {
		return t.orders[r].ID
	}
	return ""
}

// attribute is Attribute, with the charges an exchange logged after ex
// could still attribute by its request: those attributed by amount or not
// at all.
func (t *attributor) attribute(charges []history.Op, ex []pspfront.Exchange) (Attribution, openCharges) {
	reqs := newRequestIndex(charges, t.inText)
	for i, x := range ex {
		reqs.add(i, x)
	}
	return t.attributeWith(charges, reqs)
}

// attributeWith is attribute over exchanges already fed to reqs.
func (t *attributor) attributeWith(charges []history.Op, reqs *requestIndex) (Attribution, openCharges) {
	a := Attribution{By: map[string][]history.Op{}, How: map[string]int{}}
	var open openCharges
	for _, c := range charges {
		id, how := t.which(c, reqs)
		if how != ByMetadata && how != ByRequest {
			open.add(c)
		}
		if id == "" {
			a.Unattributed = append(a.Unattributed, c)
			continue
		}
		a.By[id] = append(a.By[id], c)
		a.How[how]++
	}
	return a, open
}

// which is the order charge c is attributed to and how ("", "" for none).
func (t *attributor) which(c history.Op, reqs *requestIndex) (id, how string) {
	for _, v := range sortedValues(c.Input.Metadata) {
		if id = t.inText(v); id != "" {
			return id, ByMetadata
		}
	}
	if id = reqs.order(c); id != "" {
		return id, ByRequest
	}
	if c.Input.Amount != nil {
		if h := t.amounts[*c.Input.Amount]; h.n == 1 {
			return h.id, ByAmount
		}
	}
	return "", ""
}

// amountHits is how many orders sent an amount, and the first of them.
type amountHits struct {
	n  int
	id string
}

func amountIndex(orders []Order) map[int64]amountHits {
	m := map[int64]amountHits{}
	for _, o := range orders {
		seen := make(map[int64]bool, 1+len(o.Alt))
		for _, v := range append([]int64{o.Amount}, o.Alt...) {
			if seen[v] {
				continue
			}
			seen[v] = true
			h := m[v]
			if h.n == 0 {
				h.id = o.ID
			}
			h.n++
			m[v] = h
		}
	}
	return m
}

// requestIndex finds, for a charge, the first exchange that made it (its
// idempotency key) or named it (its answer's body) and whose request names
// an order. It is fed the exchanges one by one (add) and keeps of each only
// what a charge can ask of it: its position and the order its request
// names, and only for an exchange under a charge's key or naming a
// charge. A soak's judge feeds it the whole run's exchanges, bodies and
// answers of tens of megabytes, from disk: holding them at once was the
// run's memory peak, and it grew with the run.
type requestIndex struct {
	inText   func(string) string
	keys     map[string]bool // the charges' idempotency keys
	cids     []string
	named    *textIndex // of cids
	byKey    map[string][]int
	byCharge map[string][]int
	body     map[int]string // inText of a kept exchange's request
}

func newRequestIndex(charges []history.Op, inText func(string) string) *requestIndex {
	r := &requestIndex{inText: inText, keys: map[string]bool{}, byKey: map[string][]int{}, byCharge: map[string][]int{},
		body: map[int]string{}}
	seen := map[string]bool{}
	for _, c := range charges {
		if c.Input.PSPKey != "" {
			r.keys[c.Input.PSPKey] = true
		}
		if c.Output != nil && c.Output.ChargeID != "" && !seen[c.Output.ChargeID] {
			seen[c.Output.ChargeID] = true
			r.cids = append(r.cids, c.Output.ChargeID)
		}
	}
	r.named = newTextIndex(r.cids)
	return r
}

// add indexes exchange x, at position i of the log; positions come in
// increasing order.
func (r *requestIndex) add(i int, x pspfront.Exchange) {
	kept := false
	if r.keys[x.Key] {
		r.byKey[x.Key] = append(r.byKey[x.Key], i)
		kept = true
	}
	if len(r.cids) > 0 {
		r.named.each(x.RespBody, func(rank int) {
			l := r.byCharge[r.cids[rank]]
			if len(l) == 0 || l[len(l)-1] != i {
				r.byCharge[r.cids[rank]] = append(l, i)
			}
			kept = true
		})
	}
	if kept {
		if id := r.inText(x.Body); id != "" {
			r.body[i] = id
		}
	}
}

// order merges the charge's two lists of exchanges in log order and
// returns the order named by the first whose request names one.
func (r *requestIndex) order(c history.Op) string {
	var byKey, byCharge []int
	if c.Input.PSPKey != "" {
		byKey = r.byKey[c.Input.PSPKey]
	}
	if c.Output != nil && c.Output.ChargeID != "" {
		byCharge = r.byCharge[c.Output.ChargeID]
	}
	for len(byKey) > 0 || len(byCharge) > 0 {
		var i int
		switch {
		case len(byCharge) == 0 || (len(byKey) > 0 && byKey[0] <= byCharge[0]):
			i = byKey[0]
			if len(byCharge) > 0 && byCharge[0] == i {
				byCharge = byCharge[1:]
			}
			byKey = byKey[1:]
		default:
			i, byCharge = byCharge[0], byCharge[1:]
		}
		if id := r.body[i]; id != "" {
			return id
		}
	}
	return ""
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
