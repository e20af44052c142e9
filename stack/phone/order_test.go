package phone

import (
	"encoding/json"
	"testing"
)

func TestReorderedBodyKeepsMeaning(t *testing.T) {
	o := Story()
	r := o
	r.Reorder = true
	r.Extra = map[string]any{"client_ts": "t"}
	var a, b map[string]any
	if err := json.Unmarshal(o.Body(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.Body(), &b); err != nil {
		t.Fatal(err)
	}
	if string(o.Body()) == string(r.Body()) {
		t.Fatal("reorder produced the same bytes")
	}
	delete(b, "client_ts")
	if len(a) != 4 || len(b) != 4 || a["amount"] != b["amount"] || a["order_id"] != b["order_id"] {
		t.Fatalf("meaning changed: %v vs %v", a, b)
	}
	if o.Fingerprint() != r.Fingerprint() {
		t.Fatal("fingerprint depends on order")
	}
}
