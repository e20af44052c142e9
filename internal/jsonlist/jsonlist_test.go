package jsonlist

import (
	"strings"
	"testing"
)

// The shapes a credits or ledger endpoint plausibly answers, and the path
// init --probe must write for each.
func TestFindsTheListInPlausibleShapes(t *testing.T) {
	for _, tc := range []struct{ body, path, err string }{
		{`[{"amount": 1}]`, "", ""},
		{`[]`, "", ""},
		{`{"data": [{"amount": 1}]}`, "data", ""},
		{`{"entries": [{"amount": 1000}]}`, "entries", ""},
		{`{"count": 1, "entries": [{"amount": 1000}]}`, "entries", ""},
		{`{"count": 0, "entries": []}`, "entries", ""},
		{`{"result": {"total": 1, "items": [{"amount": 5}]}}`, "result.items", ""},
		{`{"errors": [], "credits": [{"amount": 5}]}`, "credits", ""},
		{`{"tags": ["a"], "rows": [{"id": 1}]}`, "rows", ""},
		{`{"a": [{"amount": 1}], "b": [{"amount": 2}]}`, "", "several lists in the answer (a, b)"},
		{`{"count": 1}`, "", "no list of rows among the answer's members (count (number))"},
		{`{"tags": ["a"]}`, "", "no list of rows among the answer's members (tags (list of 1))"},
		{`"x"`, "", "a JSON string"},
		{`<html>`, "", "not JSON"},
	} {
		path, err := Find([]byte(tc.body))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if path != tc.path || (tc.err == "") != (err == nil) || !strings.Contains(got, tc.err) {
			t.Errorf("%s: path %q err %q, want %q err containing %q", tc.body, path, got, tc.path, tc.err)
		}
	}
}

func TestMembersNamesWhatTheAnswerHolds(t *testing.T) {
	if got := Members([]byte(`{"entries": [{"amount": 1}, {"amount": 2}], "count": 2}`)); got != "count (number), entries (list of 2)" {
		t.Errorf("got %q", got)
	}
}
