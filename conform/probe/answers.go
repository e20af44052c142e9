package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/conform/driver"
)

// Field names looked for in answers, most likely first.
var (
	idNames     = []string{"id", "payment_id", "paymentId", "payment_intent_id", "transaction_id"}
	statusNames = []string{"status", "state", "payment_status", "result"}
	codeNames   = []string{"code", "error.code", "error.type", "type"}
)

func parseJSON(body string) (any, bool) {
	var v any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	_, obj := v.(map[string]any)
	return v, obj
}

// findPath returns the dotted path of the shallowest string member named
// one of names (searching nested objects three levels deep), or "".
func findPath(body string, names []string) string {
	v, ok := parseJSON(body)
	if !ok {
		return ""
	}
	type node struct {
		m    map[string]any
		path string
	}
	level := []node{{m: v.(map[string]any)}}
	for depth := 0; depth < 3 && len(level) > 0; depth++ {
		for _, n := range level {
			for _, name := range names {
				if s, ok := n.m[name].(string); ok && s != "" {
					return join(n.path, name)
				}
			}
		}
		var next []node
		for _, n := range level {
			for k, c := range n.m {
				if cm, ok := c.(map[string]any); ok {
					next = append(next, node{m: cm, path: join(n.path, k)})
				}
			}
		}
		level = next
	}
	return ""
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// value reads a dotted path from a JSON answer ("" when absent).
func value(a *driver.Attempt, path string) string {
	if a == nil || path == "" {
		return ""
	}
	v, _ := driver.JSONPath([]byte(a.RespBody), path)
	return v
}

// errorCode is the code an error answer carries, and the path it is at.
func errorCode(a *driver.Attempt) (path, code string) {
	for _, p := range codeNames {
		if v := value(a, p); v != "" {
			return p, v
		}
	}
	return "", ""
}

func success(a *driver.Attempt) bool {
	return a != nil && a.Err == "" && a.Status >= 200 && a.Status < 300
}

func isJSON(a *driver.Attempt) bool {
	_, ok := parseJSON(a.RespBody)
	return ok
}

func problemJSON(a *driver.Attempt) bool {
	ct, _ := a.Header("Content-Type")
	return strings.HasPrefix(strings.ToLower(ct), "application/problem+json")
}

// describe is one attempt as a comment: its status, the headers that matter
// and the start of its body.
func describe(a *driver.Attempt) string {
	if a == nil {
		return "(not sent)"
	}
	if a.Err != "" {
		return "no answer (" + a.Err + ")"
	}
	s := fmt.Sprintf("%d", a.Status)
	for _, h := range []string{"Retry-After", "Idempotent-Replayed", "Idempotency-Replayed", "X-Idempotent-Replayed"} {
		if v, ok := a.Header(h); ok {
			s += fmt.Sprintf(" %s: %s", h, v)
		}
	}
	body := strings.Join(strings.Fields(a.RespBody), " ")
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(a.RespBody)) == nil {
		body = compact.String()
	}
	if len(body) > 110 {
		body = body[:110] + "..."
	}
	if body != "" {
		s += " " + body
	} else {
		s += " (empty body)"
	}
	return s
}

// replayHeader is a header the replay carries and the first answer does not.
func replayHeader(first, replay *driver.Attempt) string {
	for k := range replay.RespHeaders {
		if !strings.Contains(strings.ToLower(k), "replay") {
			continue
		}
		if _, ok := first.Header(k); !ok {
			return k
		}
	}
	return ""
}
