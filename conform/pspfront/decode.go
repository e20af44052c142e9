package pspfront

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// decode renders a form body as "name=value" lines (so metadata[order_id]
// and description are plain text to search) and reads its amount; a JSON
// body stays as it is, and its amount is read from it.
func decode(ct string, raw []byte) (string, int64) {
	if strings.HasPrefix(ct, "application/json") {
		return string(raw), jsonAmount(raw)
	}
	if !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return string(raw), 0
	}
	vals, err := url.ParseQuery(string(raw))
	if err != nil {
		return string(raw), 0
	}
	var b strings.Builder
	for k, vs := range vals {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	var amount int64
	_, _ = fmt.Sscan(vals.Get("amount"), &amount)
	return b.String(), amount
}

// jsonAmount is the amount of a JSON payment request, in the shapes the
// PSPs use: a number ("amount": 1000) or Adyen's money object ("amount":
// {"value": 1000, "currency": "EUR"}); 0 when there is none.
func jsonAmount(raw []byte) int64 {
	var m struct {
		Amount json.RawMessage `json:"amount"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.Amount) == 0 {
		return 0
	}
	var n int64
	if json.Unmarshal(m.Amount, &n) == nil {
		return n
	}
	var money struct {
		Value int64 `json:"value"`
	}
	if json.Unmarshal(m.Amount, &money) == nil {
		return money.Value
	}
	return 0
}
