package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// FilledMeaning lists the meaning fields idemcheck fills itself, in a fixed
// order: what SCENARIOS.md A5 names a payment's meaning.
var FilledMeaning = []string{"order_id", "amount", "currency", "payment_method"}

// MeaningFields is what a create request means: the fields a mismatch changes
// one at a time, and that a true retry never changes. It is create.meaning
// when the config lists it, else every filled meaning field the template
// uses.
func (r *Request) MeaningFields() []string {
	if len(r.Meaning) > 0 {
		return slices.Clone(r.Meaning)
	}
	used := r.placeholders()
	var out []string
	for _, f := range FilledMeaning {
		if used[f] {
			out = append(out, f)
		}
	}
	return out
}

// Uses says whether the template fills the placeholder name.
func (r *Request) Uses(name string) bool { return r.placeholders()[name] }

func (r *Request) placeholders() map[string]bool {
	out := map[string]bool{}
	for _, t := range []string{r.Path, r.Body} {
		for _, m := range placeholderRE.FindAllStringSubmatch(t, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// meaning checks create.meaning: each name is a field idemcheck fills (and
// the template uses), or a top-level member of the body whose value is
// written in the template, so that idemcheck can change it.
func (v *validator) meaning(prefix string, r *Request) {
	used := r.placeholders()
	lits := LiteralMembers(r.Body)
	seen := map[string]bool{}
	for i, f := range r.Meaning {
		field := fmt.Sprintf("%s.meaning[%d]", prefix, i)
		switch {
		case seen[f]:
			v.bad(field, "%q is listed twice", f)
		case f == r.Key.BodyField || slices.Contains(r.VolatileFields, f):
			v.bad(field, "%q cannot be meaning: it is the key field or a volatile field", f)
		case slices.Contains(FilledMeaning, f):
			if !used[f] {
				v.bad(field, "%q: the template has no {{%s}} placeholder, so idemcheck cannot change it", f, f)
			}
		case lits[f] == nil:
			v.bad(field, "%q is neither a field idemcheck fills (%s) nor a top-level member of create.body with a written value",
				f, strings.Join(FilledMeaning, ", "))
		}
		seen[f] = true
	}
	for _, l := range []struct {
		name string
		vals []string
	}{{"currencies", r.Currencies}, {"payment_methods", r.PaymentMethods}} {
		name, vals := l.name, l.vals
		for i, x := range vals {
			if strings.TrimSpace(x) == "" || slices.Index(vals, x) < i {
				v.bad(fmt.Sprintf("%s.%s[%d]", prefix, name, i), "%q: empty or listed twice", x)
			}
		}
	}
	if len(r.Meaning) > 0 && !slices.Contains(r.Meaning, "amount") {
		v.bad(prefix+".meaning", "must list amount: idemcheck tells intents apart by their amount")
	}
}

// LiteralMembers lists the top-level members of a body template whose value
// idemcheck does not fill (no placeholder in it), each with its value as
// written. It is nil when the template is not a JSON object.
func LiteralMembers(body string) map[string]json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(markPlaceholders(body)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		if !bytes.Contains(raw, []byte(markerEsc)) {
			out[kt.(string)] = bytes.TrimSpace(raw)
		}
	}
	return out
}

// markerEsc is what a placeholder becomes in markPlaceholders: a JSON escape
// no template writes by hand.
const markerEsc = `\u0001`

// markPlaceholders replaces each placeholder with a marker that is valid JSON
// where it stands: an escape inside a string, a string of its own elsewhere.
func markPlaceholders(body string) string {
	var b strings.Builder
	inStr := false
	for i := 0; i < len(body); {
		if loc := placeholderRE.FindStringIndex(body[i:]); loc != nil && loc[0] == 0 {
			if inStr {
				b.WriteString(markerEsc)
			} else {
				b.WriteString(`"` + markerEsc + `"`)
			}
			i += loc[1]
			continue
		}
		c := body[i]
		if inStr && c == '\\' && i+1 < len(body) {
			b.WriteByte(c)
			i++
			c = body[i]
		} else if c == '"' {
			inStr = !inStr
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}
