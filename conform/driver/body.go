package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Meaning is what a payment request means: the fields idemcheck fills.
type Meaning struct {
	OrderID       string
	Amount        int64
	Currency      string
	PaymentMethod string
	// Literal, when set, changes one member of the body template that
	// idemcheck does not fill (a mismatch of a user-declared meaning field).
	Literal Literal
}

var placeholderRE = regexp.MustCompile(`\{\{\s*([a-zA-Z0-9_]+)\s*\}\}`)

// Fill replaces {{name}} placeholders with vals.
func Fill(tmpl string, vals map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		return vals[name]
	})
}

func (m Meaning) vals() map[string]string {
	return map[string]string{
		"order_id": m.OrderID, "amount": strconv.FormatInt(m.Amount, 10),
		"currency": m.Currency, "payment_method": m.PaymentMethod,
	}
}

// field is one top-level JSON member, kept raw so order can change.
type field struct {
	name string
	raw  json.RawMessage
}

func parseObject(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("body is not a JSON object")
	}
	var out []field
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, field{name: kt.(string), raw: raw})
	}
	return out, nil
}

func writeObject(fs []field) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(f.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// SetField sets a top-level JSON member (for a key carried in the body).
func SetField(body []byte, name string, value any) ([]byte, error) {
	fs, err := parseObject(body)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(value)
	for i := range fs {
		if fs[i].name == name {
			fs[i].raw = raw
			return writeObject(fs), nil
		}
	}
	return writeObject(append(fs, field{name: name, raw: raw})), nil
}

// Reorder reverses the members of a JSON object, so the body is the same
// request but differs byte for byte (scenario A5). It adds nothing: a new
// field would make it another request to a service that fingerprints the
// whole parsed body.
func Reorder(body []byte) ([]byte, error) {
	fs, err := parseObject(body)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(fs)-1; i < j; i, j = i+1, j-1 {
		fs[i], fs[j] = fs[j], fs[i]
	}
	out := writeObject(fs)
	// Spaces after separators change the bytes further without changing meaning.
	return bytes.ReplaceAll(out, []byte(`":`), []byte(`": `)), nil
}

// JSONPath reads a dotted path (a.b.c) from a JSON document as a string.
func JSONPath(body []byte, path string) (string, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = m[p]; !ok {
			return "", false
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", false
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}
