package fakepsp

import (
	"net/http"
	"strings"
)

// Stripe's expand[]: an id in the answer becomes the object it names. The
// fake expands the objects it has (a PaymentIntent's latest_charge, a
// refund's charge and payment_intent, a charge's payment_intent); any other
// field answers 400 as Stripe answers for a field that cannot be expanded.

func notExpandable(field string, allowed []string) response {
	msg := "This property cannot be expanded (" + field + ")."
	if oneOf("data."+field, allowed) {
		msg += " You may want to try expanding 'data." + field + "' instead."
	}
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Message: msg})
}

// expand rewrites a successful answer's expandable fields. Answers share
// maps with the search snapshots, so every map changed is a copy.
func (p *PSP) expand(c *call, resp response, fields []string) response {
	if len(fields) == 0 || resp.status != http.StatusOK {
		return resp
	}
	obj, isMap := resp.body.(map[string]any)
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
	obj = p.expandObject(c.acct, obj, top)
	if data, ok := obj["data"].([]any); ok && len(inData) > 0 {
		out := make([]any, len(data))
		for i, x := range data {
			if m, ok := x.(map[string]any); ok {
				out[i] = p.expandObject(c.acct, m, inData)
			} else {
				out[i] = x
			}
		}
		obj = copyObject(obj)
		obj["data"] = out
	}
	resp.body = obj
	return resp
}

// expandObject expands fields of one object; the caller holds p.mu.
func (p *PSP) expandObject(acct *account, obj map[string]any, fields []string) map[string]any {
	var out map[string]any
	for _, f := range fields {
		id, _ := obj[f].(string)
		if id == "" {
			continue // null stays null, as in Stripe
		}
		var full map[string]any
		switch {
		case f == "payment_intent" && acct.intents[id] != nil:
			full = acct.intents[id].json()
		case (f == "latest_charge" || f == "charge") && acct.charges[id] != nil:
			full = acct.charges[id].chargeJSON()
		default:
			continue
		}
		if out == nil {
			out = copyObject(obj)
		}
		out[f] = full
	}
	if out == nil {
		return obj
	}
	return out
}

func copyObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
