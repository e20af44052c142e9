package fakepsp

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// TestFreedomDuplicates: with every event drawn for a duplicate, a
// scheduled event is delivered twice, the second flagged; an event a Hold
// released is delivered once (the harness chose its copies).
func TestFreedomDuplicates(t *testing.T) {
	cfg := fastWebhooks()
	cfg.WebhookFreedoms = WebhookFreedoms{Duplicates: 1, Seed: 7}
	p := start(t, cfg)
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "k1", payment("100", "pm_card_visa", "pay_1")), 200)
	waitFor(t, "two copies", 5*time.Second, func() bool { return len(rcv.all()) == 2 })
	h := p.HoldWebhooks(func(ev WebhookEvent) bool { return ev.Amount == 200 })
	wantStatus(t, "held", form(t, p, "/v1/payment_intents", "k2", payment("200", "pm_card_visa", "pay_2")), 200)
	h.Release()
	waitFor(t, "the held event", 5*time.Second, func() bool { return len(rcv.all()) >= 3 })
	// A duplicate of the released event would be queued before the next
	// scheduled event, so once that one's two copies are in, none is due.
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "k3", payment("300", "pm_card_visa", "pay_3")), 200)
	waitFor(t, "the third event's copies", 5*time.Second, func() bool { return len(rcv.all()) >= 5 })
	if n := len(rcv.all()); n != 5 {
		t.Fatalf("%d deliveries, want 5 (2 + 2 of the scheduled events, 1 of the released one)", n)
	}
	// The receiver sees a request before its attempt returns and is logged.
	waitFor(t, "five deliveries logged", 5*time.Second, func() bool { return len(p.Deliveries()) >= 5 })
	dups := 0
	for _, d := range p.Deliveries() {
		if d.Duplicate {
			dups++
		}
	}
	if c := p.WebhookFreedomCounts(); dups != 2 || c != (FreedomCounts{Events: 2, Duplicated: 2}) {
		t.Fatalf("duplicates logged %d, counts %+v; want 2 and {2 2 0}", dups, c)
	}
}

// TestFreedomOutOfOrder: an event drawn out of order is delivered late,
// and the event raised after it overtakes it.
func TestFreedomOutOfOrder(t *testing.T) {
	// A seed whose first draw is late and second is not.
	seed := uint64(1)
	for ; ; seed++ {
		probe := core.Freedoms{Seed: seed}
		if probe.Draw("out of order", 0, 0.5) && !probe.Draw("out of order", 1, 0.5) {
			break
		}
	}
	p := start(t, Config{WebhookSchedule: WebhookSchedule{Base: time.Minute}, WebhookFreedoms: WebhookFreedoms{OutOfOrder: 0.5, Late: 2 * time.Second, Seed: seed}})
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	a := form(t, p, "/v1/payment_intents", "o1", payment("100", "pm_card_visa", "pay_o1"))
	b := form(t, p, "/v1/payment_intents", "o2", payment("100", "pm_card_visa", "pay_o2"))
	var late []string
	for _, ev := range p.WebhookEvents(a.str("id")) {
		if ev.Type == "payment_intent.succeeded" {
			late = append(late, ev.ID)
		}
	}
	if n := p.PendingDeliveries(late); n != 1 {
		t.Errorf("the late event: %d pending, want 1", n)
	}
	waitFor(t, "both events", 5*time.Second, func() bool { return len(rcv.all()) == 2 })
	var order []string
	for _, r := range rcv.all() {
		var e struct {
			Data struct{ Object struct{ ID string } }
		}
		_ = json.Unmarshal(r.body, &e)
		order = append(order, e.Data.Object.ID)
	}
	if order[0] != b.str("id") || order[1] != a.str("id") {
		t.Fatalf("delivery order %v, want %s then %s", order, b.str("id"), a.str("id"))
	}
	if c := p.WebhookFreedomCounts(); c != (FreedomCounts{Events: 2, Reordered: 1}) {
		t.Fatalf("counts %+v, want {2 0 1}", c)
	}
	// The delivery stays pending until its attempt returns, just after
	// the receiver saw it.
	waitFor(t, "the late event no longer pending", 5*time.Second, func() bool { return p.PendingDeliveries(late) == 0 })
}

// TestFreedomDraws: the draws follow the seed and the share.
func TestFreedomDraws(t *testing.T) {
	draws := func(seed uint64) (n int, s []bool) {
		f := core.Freedoms{Seed: seed}
		for i := uint64(0); i < 1000; i++ {
			hit := f.Draw("duplicate", i, 0.25)
			s = append(s, hit)
			if hit {
				n++
			}
		}
		return n, s
	}
	n1, a := draws(1)
	_, b := draws(1)
	_, c := draws(2)
	if n1 < 200 || n1 > 300 {
		t.Errorf("%d of 1000 drawn at a share of 0.25", n1)
	}
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("same seed drew differently, or another seed drew the same")
	}
	if (core.Freedoms{}).Draw("duplicate", 3, 0) {
		t.Errorf("a share of 0 drew")
	}
	if _, err := Start(Config{WebhookFreedoms: WebhookFreedoms{Duplicates: 1.5}}); err == nil {
		t.Errorf("a share of 1.5 started")
	}
}
