package push

import (
	"context"
	"net/http/httptest"
	"testing"
)

func TestReplaceIDReplacesAndUntaggedStacks(t *testing.T) {
	p := NewPhones()
	steps := []struct {
		n        Notification
		shown    int
		replaced bool
	}{
		{Notification{Recipient: "u1", ReplaceID: "pay_7"}, 1, false},
		{Notification{Recipient: "u1", ReplaceID: "pay_7"}, 1, true},
		{Notification{Recipient: "u1"}, 2, false},
		{Notification{Recipient: "u1"}, 3, false},
		{Notification{Recipient: "u2", ReplaceID: "pay_7"}, 1, false},
	}
	for i, s := range steps {
		d, err := p.Deliver(s.n)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d.Shown != s.shown || d.Replaced != s.replaced || !d.Alert {
			t.Fatalf("step %d: got %+v, want shown %d replaced %v alert true", i, d, s.shown, s.replaced)
		}
	}
	if s := p.Screen("u1"); len(s.Shown) != 3 || s.Alerts != 4 || s.Shown[0].Deliveries != 2 {
		t.Fatalf("u1 screen: %+v", s)
	}
	if _, err := p.Deliver(Notification{}); err == nil {
		t.Fatal("a notification without recipient was accepted")
	}
}

func TestServerRecordsNotifyOps(t *testing.T) {
	srv := NewServer()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := NewClient(hs.URL)
	ctx := context.Background()
	for range 2 {
		if _, err := c.Send(ctx, Notification{Recipient: "u1", ReplaceID: "pay_7", PaymentID: "pay_7"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Send(ctx, Notification{Recipient: "u1"}); err == nil {
		t.Fatal("a notification naming neither payment nor intent was accepted")
	}
	h, err := c.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 {
		t.Fatalf("history has %d ops, want 2", len(h))
	}
	for i, op := range h {
		if op.Op != "notify" || op.PaymentID != "pay_7" || op.Input.ReplaceID != "pay_7" || *op.Output.Shown != 1 || !*op.Output.Alert {
			t.Fatalf("op %d: %+v", i, op)
		}
	}
	s, err := c.Screen(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Shown) != 1 || s.Alerts != 2 {
		t.Fatalf("screen %+v", s)
	}
}
