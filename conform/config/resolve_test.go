package config

import (
	"errors"
	"strings"
	"testing"
)

// The resolve request takes POST and the create's key by default, and a bad
// one is an error naming its field and line.
func TestResolveDefaultsAndErrors(t *testing.T) {
	c, err := Parse("r.yaml", []byte(Starter+"\nresolve:\n  path: /payments/resolve\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Resolve; r.Method != "POST" || r.Key.Header != c.Create.Key.Header || r.Key.Header == "" {
		t.Fatalf("defaults not applied: %+v", r)
	}
	text := Starter + "\nresolve:\n  path: payments/resolve\n"
	_, err = Parse("r.yaml", []byte(text))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "resolve.path" || es[0].Line != strings.Count(text, "\n") {
		t.Fatalf("want one error at resolve.path on the path's line, got %v", err)
	}
}
