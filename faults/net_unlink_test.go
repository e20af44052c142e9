package faults

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestClientReplyLostLeavesNoProxy: each client-reply-lost injection makes
// a link of its own; its Undo removes it from the server, so a run of
// thousands of them keeps none (a soak's hour kept a thousand).
func TestClientReplyLostLeavesNoProxy(t *testing.T) {
	tp, err := StartToxiproxy()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tp.Stop() }()
	svc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer svc.Close()
	sys := &System{Target: svc.URL, Proxy: func() (*Toxiproxy, error) { return tp, nil }}
	before := len(tp.srv.Collection.Proxies())
	for n := range 20 {
		inj, err := Lookup("client-reply-lost").Inject(context.Background(), sys, Scope{N: n})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(tp.srv.Collection.Proxies()); got != before+1 {
			t.Fatalf("injection %d: %d proxies, want %d (its own link)", n, got, before+1)
		}
		if err := inj.Undo(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(tp.srv.Collection.Proxies()); got != before {
		t.Fatalf("%d proxies after 20 injections undone, want %d", got, before)
	}
}
