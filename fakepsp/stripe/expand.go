package stripe

import (
	"net/http"
	"strings"
)

// Stripe's expand[]: an id in the answer becomes the object it names. The
// fake expands every object it holds (a PaymentIntent's latest_charge,
// customer and payment_method, a refund's charge, payment_intent and
// balance_transaction, a charge's payment_intent, balance_transaction and
// customer, a balance transaction's source), one level or through a path
// (latest_charge.balance_transaction); any other field answers 400 as
// Stripe answers for a field that cannot be expanded.

// expand rewrites a successful answer's expandable fields. Answers share
// maps with the search snapshots, so every map changed is a copy.
func (p *API) expand(c *call, resp response, fields []string) response {
	if len(fields) == 0 || resp.Status != http.StatusOK {
		return resp
	}
	obj, isMap := resp.Body.(map[string]any)
	if !isMap {
		return resp
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var inData []string
	var top []string
	for _, f := range fields {
		if rest, ok := strings.CutPrefix(f, "data."); ok {
			inData = append(inData, rest)
		} else {
			top = append(top, f)
		}
	}
	obj, err := p.expandObject(c.acct, obj, top)
	if err != nil {
		return storageError(err)
	}
	if data, ok := obj["data"].([]any); ok && len(inData) > 0 {
		out := make([]any, len(data))
		for i, x := range data {
			if m, ok := x.(map[string]any); ok {
				if out[i], err = p.expandObject(c.acct, m, inData); err != nil {
					return storageError(err)
				}
			} else {
				out[i] = x
			}
		}
		obj = copyObject(obj)
		obj["data"] = out
	}
	resp.Body = obj
	return resp
}

// expandObject expands fields of one object; the caller holds p.mu.
func (p *API) expandObject(acct *account, obj map[string]any, fields []string) (map[string]any, error) {
	var out map[string]any
	for _, path := range fields {
		f, rest, nested := strings.Cut(path, ".")
		cur := obj
		if out != nil {
			cur = out
		}
		var full map[string]any
		if m, isObj := cur[f].(map[string]any); isObj {
			full = m // expanded by an earlier path (latest_charge, then latest_charge.balance_transaction)
		} else if id, _ := cur[f].(string); id != "" {
			var err error
			if full, err = p.lookup(acct, f, id); err != nil {
				return nil, err
			}
		}
		if full == nil {
			continue // null stays null, as in Stripe
		}
		if nested {
			var err error
			if full, err = p.expandObject(acct, full, []string{rest}); err != nil {
				return nil, err
			}
		}
		if out == nil {
			out = copyObject(obj)
		}
		out[f] = full
	}
	if out == nil {
		return obj, nil
	}
	return out, nil
}

// lookup is the object an expandable field's id names, nil when none; the
// caller holds p.mu.
func (p *API) lookup(acct *account, field, id string) (map[string]any, error) {
	switch {
	case field == "payment_intent":
		pi, err := acct.intents.peek(id)
		if pi == nil {
			return nil, err
		}
		return pi.JSON(), nil
	case field == "latest_charge" || field == "charge":
		return acct.chargeObject(id)
	case field == "balance_transaction":
		return acct.txnObject(id)
	case field == "source" && strings.HasPrefix(id, "re_"):
		rf, err := acct.refunds.get(id)
		if rf == nil {
			return nil, err
		}
		return rf.JSON(), nil
	case field == "source":
		return acct.chargeObject(id)
	case field == "payment_method":
		return MethodJSON(id), nil
	case field == "customer" && acct.customers[id] != nil:
		return acct.customers[id].json(), nil
	}
	return nil, nil
}

func copyObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
