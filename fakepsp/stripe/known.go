package stripe

import (
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	stripego "github.com/stripe/stripe-go/v85"
)

// Stripe answers 400 parameter_unknown to any parameter an endpoint does not
// take, nested ones included. A fake that ignored them would pass a client
// that Stripe rejects. The parameters each endpoint takes are read from
// stripe-go's params structs (their form tags), so the set is Stripe's own
// for the API version the library pins, not a list kept by hand. Parameters
// Stripe takes but the fake does not model are accepted and ignored.

// ParamNode is one level of an endpoint's parameter tree.
type ParamNode struct {
	fields map[string]*ParamNode // struct fields by form name
	anyKey *ParamNode            // a map: any key, this value
	elem   *ParamNode            // a slice: name[] or name[N]
}

var (
	stripeParamsType = reflect.TypeOf(stripego.Params{})
	paramTrees       sync.Map // reflect.Type -> *ParamNode
)

// ParamTree is the parameter tree of a stripe-go params struct (e.g.
// stripego.PaymentIntentCreateParams{}).
func ParamTree(v any) *ParamNode {
	t := reflect.TypeOf(v)
	if n, ok := paramTrees.Load(t); ok {
		return n.(*ParamNode)
	}
	n := buildTree(t, map[reflect.Type]*ParamNode{})
	paramTrees.Store(t, n)
	return n
}

func buildTree(t reflect.Type, seen map[reflect.Type]*ParamNode) *ParamNode {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := seen[t]; ok {
		return n // a recursive type: share the node
	}
	n := &ParamNode{}
	seen[t] = n
	switch t.Kind() {
	case reflect.Struct:
		n.fields = map[string]*ParamNode{}
		addFields(n, t, seen)
	case reflect.Map:
		n.anyKey = buildTree(t.Elem(), seen)
	case reflect.Slice, reflect.Array:
		n.elem = buildTree(t.Elem(), seen)
	}
	return n
}

func addFields(n *ParamNode, t reflect.Type, seen map[reflect.Type]*ParamNode) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("form"), ",")
		switch {
		case name == "-" || name == "" && !f.Anonymous:
			continue
		case name == "*":
			// Embedded ListParams and SearchParams give limit, starting_after,
			// query...; stripego.Params gives only the library's own fields
			// (each params struct declares its real expand and metadata).
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && ft.Kind() == reflect.Struct && ft != stripeParamsType {
				addFields(n, ft, seen)
			}
			continue
		}
		child := buildTree(f.Type, seen)
		if old := n.fields[name]; old != nil {
			child = mergeNodes(old, child) // created and created[gt] share a name
		}
		n.fields[name] = child
	}
}

func mergeNodes(a, b *ParamNode) *ParamNode {
	m := &ParamNode{anyKey: a.anyKey, elem: a.elem, fields: map[string]*ParamNode{}}
	if m.anyKey == nil {
		m.anyKey = b.anyKey
	}
	if m.elem == nil {
		m.elem = b.elem
	}
	for k, v := range a.fields {
		m.fields[k] = v
	}
	for k, v := range b.fields {
		m.fields[k] = v
	}
	return m
}

// UnknownParams lists the parameters of v the tree does not know, each named
// as Stripe names it: the key up to and including its first unknown level.
func (n *ParamNode) UnknownParams(p Params) []string {
	var bad []string
	seen := map[string]bool{}
	for key := range p.Values() {
		if u := n.unknown(key); u != "" && !seen[u] {
			seen[u] = true
			bad = append(bad, u)
		}
	}
	sort.Strings(bad)
	return bad
}

// unknown returns "" when key is a parameter the tree takes.
func (n *ParamNode) unknown(key string) string {
	segs, ok := splitKey(key)
	if !ok {
		return key
	}
	cur, ok := n.fields[segs[0]]
	if !ok {
		return segs[0]
	}
	path := segs[0]
	for _, s := range segs[1:] {
		path += "[" + s + "]"
		switch {
		case cur.anyKey != nil:
			cur = cur.anyKey
		case cur.elem != nil && (s == "" || isIndex(s)):
			cur = cur.elem
		case cur.fields[s] != nil:
			cur = cur.fields[s]
		default:
			return path
		}
	}
	return ""
}

// splitKey splits "a[b][c]" into a, b, c; ok is false for a malformed key.
func splitKey(key string) ([]string, bool) {
	head, rest, _ := strings.Cut(key, "[")
	if head == "" {
		return nil, false
	}
	segs := []string{head}
	if rest == "" && !strings.Contains(key, "[") {
		return segs, true
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, false
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, false
		}
		segs = append(segs, rest[1:end])
		rest = rest[end+1:]
	}
	return segs, true
}

func isIndex(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0
}

// UnknownParam is Stripe's answer to parameters an endpoint does not take.
func UnknownParam(names []string) core.Reply {
	msg := "Received unknown parameter: " + names[0]
	if len(names) > 1 {
		msg = "Received unknown parameters: " + strings.Join(names, ", ")
	}
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_unknown",
		Param: names[0], Message: msg, DocURL: "https://stripe.com/docs/error-codes/parameter-unknown"})
}
