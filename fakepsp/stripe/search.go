package stripe

import (
	"strconv"
	"strings"
)

// clause is one term of Stripe's search query language:
// field:'value', -field:'value', amount>100, metadata['k']:'v'.
type clause struct {
	field  string // "metadata", "status", "currency", "amount", "created"
	key    string // metadata key
	op     string // ":", ">", "<", ">=", "<="
	value  string
	negate bool
}

// Query is a parsed search query: clauses joined by AND, or by OR.
type Query struct {
	clauses []clause
	or      bool
}

// ParseQuery parses clauses joined by AND or by OR (Stripe forbids
// mixing); err is the message of Stripe's 400 when q is not a query.
func ParseQuery(q string) (Query, string) {
	clauses, or, err := parseQuery(q)
	return Query{clauses: clauses, or: or}, err
}

func parseQuery(q string) (clauses []clause, or bool, err string) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, false, "Missing required param: query."
	}
	hasAnd, hasOr := strings.Contains(q, " AND "), strings.Contains(q, " OR ")
	if hasAnd && hasOr {
		return nil, false, "Queries cannot mix AND and OR."
	}
	sep := " AND "
	if hasOr {
		sep, or = " OR ", true
	}
	for _, term := range strings.Split(q, sep) {
		c, e := parseClause(strings.TrimSpace(term))
		if e != "" {
			return nil, false, e
		}
		clauses = append(clauses, c)
	}
	return clauses, or, ""
}

func parseClause(t string) (clause, string) {
	var c clause
	if strings.HasPrefix(t, "-") {
		c.negate, t = true, t[1:]
	}
	if strings.HasPrefix(t, "metadata[") {
		end := strings.Index(t, "]")
		if end < 0 {
			return c, "Invalid query clause " + strconv.Quote(t) + ": unclosed metadata["
		}
		k, ok := unquote(t[len("metadata["):end])
		if !ok {
			return c, "Invalid query clause " + strconv.Quote(t) + ": metadata key must be quoted"
		}
		c.field, c.key, t = "metadata", k, t[end+1:]
	} else {
		i := strings.IndexAny(t, ":<>")
		if i < 0 {
			return c, "Invalid query clause " + strconv.Quote(t) + ": expected field:value"
		}
		c.field, t = t[:i], t[i:]
		switch c.field {
		case "status", "currency", "amount", "created":
		default:
			return c, "Field " + strconv.Quote(c.field) + " is not supported in payment_intents search."
		}
	}
	for _, op := range []string{">=", "<=", ":", ">", "<"} {
		if strings.HasPrefix(t, op) {
			c.op, t = op, t[len(op):]
			break
		}
	}
	if c.op == "" {
		return c, "Invalid query clause: missing operator"
	}
	if v, ok := unquote(t); ok {
		c.value = v
	} else if _, err := strconv.ParseInt(t, 10, 64); err == nil && c.op != ":" || c.field == "amount" || c.field == "created" {
		c.value = t
	} else {
		return c, "Invalid query value " + strconv.Quote(t) + ": strings must be quoted"
	}
	if c.op != ":" && c.field != "amount" && c.field != "created" {
		return c, "Comparison " + c.op + " only applies to amount and created."
	}
	return c, ""
}

func unquote(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1], true
	}
	return "", false
}

func (c clause) matches(f SearchFields) bool {
	var got bool
	switch c.field {
	case "metadata":
		v, has := f.Metadata.Get(c.key)
		got = has && v == c.value
	case "status", "currency":
		got = f.get(c.field) == c.value
	case "amount", "created":
		have, _ := f.get(c.field).(int64)
		want, err := strconv.ParseInt(c.value, 10, 64)
		if err != nil {
			return false
		}
		switch c.op {
		case ":":
			got = have == want
		case ">":
			got = have > want
		case "<":
			got = have < want
		case ">=":
			got = have >= want
		case "<=":
			got = have <= want
		}
	}
	return got != c.negate
}

// SameVersion says whether two renderings of a PaymentIntent are the same
// version as search sees it (its status and latest charge).
func SameVersion(a, b SearchFields) bool {
	return a.Status == b.Status && a.LatestCharge == b.LatestCharge
}

// Matches says whether a PaymentIntent rendered as snap matches q.
func (q Query) Matches(snap map[string]any) bool { return q.MatchesFields(searchView(snap)) }

// MatchesFields says whether a PaymentIntent whose rendering has fields f
// matches q.
func (q Query) MatchesFields(f SearchFields) bool {
	for _, c := range q.clauses {
		if c.matches(f) == q.or {
			return q.or
		}
	}
	return !q.or
}
