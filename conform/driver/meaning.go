package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Literal is a top-level member of a body template that idemcheck does not
// fill but the user declares meaning (create.meaning): a mismatch sends it
// changed, a true retry never does.
type Literal struct {
	Field string
	// Raw is the member's changed value as JSON.
	Raw string
}

// ChangeLiteral returns a value of the same JSON type that differs from raw.
func ChangeLiteral(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return `"idemcheck-changed"`
	}
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x + "-changed")
		return string(b)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return strconv.FormatInt(n+1, 10)
		}
		f, _ := x.Float64()
		return strconv.FormatFloat(f+1, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(!x)
	case nil:
		return `"idemcheck-changed"`
	default:
		b, _ := json.Marshal(fmt.Sprint(x) + "-changed")
		return string(b)
	}
}
