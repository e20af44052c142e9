package fakepsp

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
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

// parseQuery parses clauses joined by AND or by OR (Stripe forbids mixing).
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

func (c clause) matches(snap map[string]any) bool {
	var got bool
	switch c.field {
	case "metadata":
		md, _ := snap["metadata"].(map[string]string)
		v, has := md[c.key]
		got = has && v == c.value
	case "status", "currency":
		got = snap[c.field] == c.value
	case "amount", "created":
		have, _ := snap[c.field].(int64)
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

// searchIntents answers from each PaymentIntent's newest version that has
// reached search (searchlag.go): search is not read-after-write, as Stripe
// warns.
func (p *PSP) searchIntents(c *call) response {
	clauses, or, perr := parseQuery(c.params.Str("query"))
	if perr != "" {
		return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_invalid", Param: "query", Message: perr})
	}
	limit, bad := wire.ListLimit(c.params)
	if bad != nil {
		return *bad
	}
	offset := 0
	if pg := c.params.Str("page"); pg != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(pg, "page_"))
		if err != nil || n < 0 {
			return invalidParam("page", "Invalid page token.")
		}
		offset = n
	}
	lag, lagFault := p.faults.LargestSearchLag()
	now := time.Now()
	stale := false
	var hits []any
	p.mu.Lock()
	all := c.acct.intents.All()
	for i := len(all) - 1; i >= 0; i-- {
		pi := all[i]
		snap := p.visibleAt(pi, now, lag)
		if snap == nil || len(pi.versions) > 0 && !sameVersion(snap, pi.versions[len(pi.versions)-1].snap) {
			stale = true
		}
		if snap != nil && matchAll(clauses, or, snap) {
			hits = append(hits, snap)
		}
	}
	p.mu.Unlock()
	if stale && lagFault != nil {
		lagFault.Bump()
	}
	if offset > len(hits) {
		offset = len(hits)
	}
	page := hits[offset:]
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	if page == nil {
		page = []any{}
	}
	var next any
	if more {
		next = "page_" + strconv.Itoa(offset+limit)
	}
	return ok(map[string]any{"object": "search_result", "url": "/v1/payment_intents/search", "has_more": more, "next_page": next, "data": page})
}

func sameVersion(a, b map[string]any) bool {
	return a["status"] == b["status"] && a["latest_charge"] == b["latest_charge"]
}

func matchAll(cs []clause, or bool, snap map[string]any) bool {
	for _, c := range cs {
		if c.matches(snap) == or {
			return or
		}
	}
	return !or
}
