package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
)

func testConfig(t *testing.T, base string) *config.Config {
	t.Helper()
	text := `target: {base_urls: ["` + base + `"]}
create:
  path: /payments
  body: '{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}'
callers: [{name: u1, headers: {Authorization: "Bearer tok"}}]
outcomes:
  payment_id: id
  rules: [{status: [201], outcome: succeeded}]
effects: {fakepsp: true}
`
	c, err := config.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A connection that dies before the first response byte is exactly the case
// in which net/http resends a request carrying an Idempotency-Key on its own
// (docs/PITFALLS.md#net-http). The driver must send one copy and report the outcome unknown.
func TestNeverResendsOnADeadConnection(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close() // the second request dies without an answer
			return
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":"pay_1"}`))
	}))
	defer srv.Close()
	d := New(testConfig(t, srv.URL), []string{srv.URL})
	m := Meaning{OrderID: "o", Amount: 1, Currency: "USD", PaymentMethod: "pm"}
	a := d.Create(context.Background(), Send{Meaning: m, Key: "K1"})
	if a.Status != 201 || a.PaymentID != "pay_1" || a.Outcome != "succeeded" {
		t.Fatalf("first: %+v", a)
	}
	b := d.Create(context.Background(), Send{Meaning: m, Key: "K1"})
	if !b.Unknown() {
		t.Fatalf("second attempt should be unknown, got %d", b.Status)
	}
	if got := n.Load(); got != 2 {
		t.Fatalf("server saw %d requests for 2 sends: the client resent on its own", got)
	}
	if len(d.Attempts()) != 2 || d.Attempts()[0].ReqHeaders["Authorization"] != "[redacted]" {
		t.Fatalf("attempts not recorded or not redacted: %+v", d.Attempts()[0].ReqHeaders)
	}
	h := d.Recorder.History()
	if len(h) != 2 || h[1].Return != nil {
		t.Fatalf("history: want 2 creates, the second with a null return; got %+v", h)
	}
}

func TestReorderKeepsMeaningChangesBytes(t *testing.T) {
	in := []byte(`{"a": 1, "b": "x", "c": {"d": 2}}`)
	out, err := Reorder(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) == string(in) {
		t.Fatal("bytes unchanged")
	}
	for path, want := range map[string]string{"a": "1", "b": "x", "c.d": "2"} {
		if v, ok := JSONPath(out, path); !ok || v != want {
			t.Errorf("%s = %q, want %q in %s", path, v, want, out)
		}
	}
	// Nothing added: the parsed body is the same request.
	var a, b map[string]any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("reordered body parses to %v, the original to %v", b, a)
	}
}

// The same server does make a naive client resend: the test above would see it.
func TestNaiveClientResendsOnTheSameServer(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		w.WriteHeader(201)
	}))
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{}}
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{}`))
		req.Header.Set("Idempotency-Key", "K1")
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	if got := n.Load(); got != 3 {
		t.Fatalf("server saw %d requests; the pitfall this package guards against did not reproduce", got)
	}
}

// TestForgetKeepsSeqsTheRunsPlaces: after Forget, what is left and what
// comes next keep the seqs they would have had (findings cite them).
func TestForgetKeepsSeqsTheRunsPlaces(t *testing.T) {
	d := &Driver{}
	for range 5 {
		d.keep(&Attempt{})
	}
	d.Forget(3)
	d.keep(&Attempt{})
	var seqs []int
	for _, a := range d.Attempts() {
		seqs = append(seqs, a.Seq)
	}
	if fmt.Sprint(seqs) != "[4 5 6]" || d.NextSeq() != 7 {
		t.Fatalf("seqs %v next %d, want [4 5 6] and 7", seqs, d.NextSeq())
	}
	d.Forget(2) // already gone: nothing changes
	if n := len(d.Attempts()); n != 3 {
		t.Fatalf("%d attempts after forgetting again what was gone, want 3", n)
	}
}
