// Package jsonlist finds the list of rows in a JSON answer whose shape a
// user did not declare: a bare list, {"data": [...]}, {"count": 2,
// "entries": [...]}. init --probe writes the path it found, and a read that
// finds no list at the configured path says which members it saw.
package jsonlist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// maxDepth is how many objects down Find looks: {"result": {"items": []}}
// is plausible, deeper nesting is not a list endpoint.
const maxDepth = 3

type candidate struct {
	path string
	rank int // 2: rows with an amount member, 1: rows are objects, 0: empty
}

// Find returns the dotted path of the list of rows ("" when the answer is
// the list). Among several arrays it takes the one whose rows carry an
// amount member, then the one of objects, then an empty one, and only when
// one array is best; otherwise the error lists them.
func Find(b []byte) (string, error) {
	v, err := decode(b)
	if err != nil {
		return "", fmt.Errorf("not JSON: %v", err)
	}
	if _, ok := v.([]any); ok {
		return "", nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", fmt.Errorf("a JSON %s, not a list or an object", typeOf(v))
	}
	var cs []candidate
	walk(m, "", 1, &cs)
	if len(cs) == 0 {
		return "", fmt.Errorf("no list of rows among the answer's members (%s)", Members(b))
	}
	best := slices.MaxFunc(cs, func(a, b candidate) int { return a.rank - b.rank }).rank
	var top []string
	for _, c := range cs {
		if c.rank == best {
			top = append(top, c.path)
		}
	}
	if len(top) > 1 {
		return "", fmt.Errorf("several lists in the answer (%s): which holds the rows?", strings.Join(top, ", "))
	}
	return top[0], nil
}

func walk(m map[string]any, prefix string, depth int, cs *[]candidate) {
	for _, k := range sortedKeys(m) {
		if strings.Contains(k, ".") {
			continue // a dotted path cannot name it
		}
		switch x := m[k].(type) {
		case []any:
			if r := rank(x); r >= 0 {
				*cs = append(*cs, candidate{prefix + k, r})
			}
		case map[string]any:
			if depth < maxDepth {
				walk(x, prefix+k+".", depth+1, cs)
			}
		}
	}
}

func rank(rows []any) int {
	if len(rows) == 0 {
		return 0
	}
	r, ok := rows[0].(map[string]any)
	if !ok {
		return -1 // a list of scalars holds no rows
	}
	if _, has := r["amount"]; has {
		return 2
	}
	return 1
}

// Members describes an answer's top-level members and their types, the
// way a user would look for the list: `count (number), entries (list of 2)`.
func Members(b []byte) string {
	v, err := decode(b)
	if err != nil {
		return "not JSON"
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "a JSON " + typeOf(v)
	}
	if len(m) == 0 {
		return "an empty object"
	}
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, fmt.Sprintf("%s (%s)", k, typeOf(m[k])))
	}
	return strings.Join(out, ", ")
}

func typeOf(v any) string {
	switch x := v.(type) {
	case []any:
		return fmt.Sprintf("list of %d", len(x))
	case map[string]any:
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func decode(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
