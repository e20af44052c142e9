package fakepsp

import (
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/stripe/stripe-go/v85"
)

// Stripe answers 400 parameter_unknown to any parameter an endpoint does not
// take, nested ones included. A fake that ignored them would pass a client
// that Stripe rejects. The parameters each endpoint takes are read from
// stripe-go's params structs (their form tags), so the set is Stripe's own
// for the API version the library pins, not a list kept by hand. Parameters
// Stripe takes but the fake does not model are accepted and ignored.

// paramNode is one level of an endpoint's parameter tree.
type paramNode struct {
	fields map[string]*paramNode // struct fields by form name
	anyKey *paramNode            // a map: any key, this value
	elem   *paramNode            // a slice: name[] or name[N]
}

var (
	stripeParamsType = reflect.TypeOf(stripe.Params{})
	paramTrees       sync.Map // reflect.Type -> *paramNode
)

// paramTree is the parameter tree of a stripe-go params struct (e.g.
// stripe.PaymentIntentCreateParams{}).
func paramTree(v any) *paramNode {
	t := reflect.TypeOf(v)
	if n, ok := paramTrees.Load(t); ok {
		return n.(*paramNode)
	}
	n := buildTree(t, map[reflect.Type]*paramNode{})
	paramTrees.Store(t, n)
	return n
}

func buildTree(t reflect.Type, seen map[reflect.Type]*paramNode) *paramNode {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := seen[t]; ok {
		return n // a recursive type: share the node
	}
	n := &paramNode{}
	seen[t] = n
	switch t.Kind() {
	case reflect.Struct:
		n.fields = map[string]*paramNode{}
		addFields(n, t, seen)
	case reflect.Map:
		n.anyKey = buildTree(t.Elem(), seen)
	case reflect.Slice, reflect.Array:
		n.elem = buildTree(t.Elem(), seen)
	}
	return n
}

func addFields(n *paramNode, t reflect.Type, seen map[reflect.Type]*paramNode) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("form"), ",")
		switch {
		case name == "-" || name == "" && !f.Anonymous:
			continue
		case name == "*":
			// Embedded ListParams and SearchParams give limit, starting_after,
			// query...; stripe.Params gives only the library's own fields
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

func mergeNodes(a, b *paramNode) *paramNode {
	m := &paramNode{anyKey: a.anyKey, elem: a.elem, fields: map[string]*paramNode{}}
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

// unknownParams lists the parameters of v the tree does not know, each named
// as Stripe names it: the key up to and including its first unknown level.
func (n *paramNode) unknownParams(p params) []string {
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
func (n *paramNode) unknown(key string) string {
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

// unknownParam is Stripe's answer to parameters an endpoint does not take.
func unknownParam(names []string) response {
	msg := "Received unknown parameter: " + names[0]
	if len(names) > 1 {
		msg = "Received unknown parameters: " + strings.Join(names, ", ")
	}
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error", Code: "parameter_unknown",
		Param: names[0], Message: msg, DocURL: "https://stripe.com/docs/error-codes/parameter-unknown"})
}
