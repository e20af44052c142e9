package fakepsp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/stripe/stripe-go/v85/webhook"
)

// receiver is a webhook endpoint that answers with codes in turn (200 once
// they run out) and keeps what it received.
type receiver struct {
	mu     sync.Mutex
	codes  []int
	got    []received
	server *httptest.Server
}

type received struct {
	body []byte
	sig  string
	code int
}

func newReceiver(t *testing.T, codes ...int) *receiver {
	r := &receiver{codes: codes}
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		code := 200
		if len(r.codes) > 0 {
			code, r.codes = r.codes[0], r.codes[1:]
		}
		r.got = append(r.got, received{body: body, sig: req.Header.Get("Stripe-Signature"), code: code})
		r.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(r.server.Close)
	return r
}

func (r *receiver) all() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func eventID(t *testing.T, body []byte) (id, typ string) {
	var e struct{ ID, Type string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	return e.ID, e.Type
}

func fastWebhooks() Config {
	return Config{WebhookSchedule: WebhookSchedule{Base: 20 * time.Millisecond, Factor: 2, Horizon: 200 * time.Millisecond}}
}

func TestWebhookSignatureVerifiesWithStripeGo(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	reg := form(t, p, "/v1/webhook_endpoints", "", url.Values{"url": {rcv.server.URL}, "enabled_events[0]": {"payment_intent.succeeded"}, "enabled_events[1]": {"payment_intent.payment_failed"}})
	wantStatus(t, "register", reg, 200)
	if reg.str("secret") != p.WebhookSecret() {
		t.Fatalf("endpoint secret %q", reg.str("secret"))
	}
	pi := form(t, p, "/v1/payment_intents", "w1", payment("3000", "pm_card_visa", "pay_w"))
	wantStatus(t, "pay", pi, 200)
	wantStatus(t, "decline", form(t, p, "/v1/payment_intents", "w2", payment("3000", "pm_card_chargeDeclined", "pay_w2")), 402)
	waitFor(t, "two deliveries", 5*time.Second, func() bool { return len(rcv.all()) == 2 })
	got := rcv.all()
	ev, err := webhook.ConstructEvent(got[0].body, got[0].sig, p.WebhookSecret())
	if err != nil {
		t.Fatalf("stripe-go rejected the delivery: %v", err)
	}
	if ev.Type != "payment_intent.succeeded" || ev.Data.Object["id"] != pi.str("id") || ev.Request.IdempotencyKey != "w1" {
		t.Fatalf("event: type %s object %v request %+v", ev.Type, ev.Data.Object["id"], ev.Request)
	}
	if ev2, err := webhook.ConstructEvent(got[1].body, got[1].sig, p.WebhookSecret()); err != nil || ev2.Type != "payment_intent.payment_failed" {
		t.Fatalf("second delivery: %v %v", ev2.Type, err)
	}
	if _, err := webhook.ConstructEvent(got[0].body, got[0].sig, "whsec_wrong"); err == nil {
		t.Fatal("a wrong secret verified")
	}
	// The same events through the API.
	list := get(t, p, "/v1/events?type=payment_intent.succeeded")
	if data, _ := list.body["data"].([]any); len(data) != 1 {
		t.Fatalf("events list: %s", list.raw)
	}
	if one := get(t, p, "/v1/events/"+ev.ID); one.str("id") != ev.ID || one.str("api_version") == "" {
		t.Fatalf("event retrieve: %s", one.raw)
	}
}

func TestWebhookRetriedUntil2xx(t *testing.T) {
	p := start(t, fastWebhooks())
	rcv := newReceiver(t, 500, 503)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "r1", payment("100", "pm_card_visa", "pay_1")), 200)
	waitFor(t, "a 2xx delivery", 5*time.Second, func() bool { d := p.Deliveries(); return len(d) == 3 })
	d := p.Deliveries()
	if d[0].Status != 500 || d[1].Status != 503 || d[2].Status != 200 || d[2].Attempt != 3 || d[0].EventID != d[2].EventID {
		t.Fatalf("deliveries: %+v", d)
	}
	if gap := d[2].At.Sub(d[1].At); gap < 40*time.Millisecond {
		t.Fatalf("second retry after %v, want >= base*factor = 40ms", gap)
	}
	// Nothing follows a success: a second event proves the worker moved on.
	wantStatus(t, "pay 2", form(t, p, "/v1/payment_intents", "r2", payment("100", "pm_card_visa", "pay_2")), 200)
	waitFor(t, "the second event", 5*time.Second, func() bool { return len(p.Deliveries()) == 4 })
	if n := len(rcv.all()); n != 4 {
		t.Fatalf("receiver got %d, want 4", n)
	}
}

func TestWebhookGivesUpAfterHorizon(t *testing.T) {
	p := start(t, fastWebhooks())
	rcv := newReceiver(t, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "g1", payment("100", "pm_card_visa", "pay_g")), 200)
	waitFor(t, "giving up", 5*time.Second, func() bool {
		d := p.Deliveries()
		return len(d) > 0 && d[len(d)-1].GaveUp
	})
	// Backoffs 20, 40, 80 ms fit in 200 ms; the next, 160 ms, would not.
	d := p.Deliveries()
	if len(d) != 4 || d[3].Attempt != 4 || !d[3].GaveUp || d[2].GaveUp {
		t.Fatalf("want 4 attempts, giving up on the 4th: %+v", d)
	}
}

func TestWebhookDuplicatesKnob(t *testing.T) {
	p := start(t, fastWebhooks())
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	f := p.Faults().Arm(FaultSpec{Kind: WebhookDuplicates, Match: Match{PSPKey: "dup"}, Extra: 2})
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "dup", payment("100", "pm_card_visa", "pay_d")), 200)
	wantStatus(t, "other", form(t, p, "/v1/payment_intents", "nodup", payment("100", "pm_card_visa", "pay_n")), 200)
	waitFor(t, "1+2 copies and the other event", 5*time.Second, func() bool { return len(rcv.all()) == 4 })
	count := map[string]int{}
	for _, r := range rcv.all() {
		id, _ := eventID(t, r.body)
		count[id]++
	}
	if len(count) != 2 || f.Fired() != 1 {
		t.Fatalf("events %v, fired %d", count, f.Fired())
	}
	for _, n := range count {
		if n != 3 && n != 1 {
			t.Fatalf("copies per event %v, want 3 and 1", count)
		}
	}
}

func TestWebhookOutOfOrderKnob(t *testing.T) {
	p := start(t, Config{WebhookSchedule: WebhookSchedule{Base: time.Minute}})
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	f := p.Faults().Arm(FaultSpec{Kind: WebhookOutOfOrder, Match: Match{Times: 1}})
	a := form(t, p, "/v1/payment_intents", "o1", payment("100", "pm_card_visa", "pay_o1"))
	b := form(t, p, "/v1/payment_intents", "o2", payment("100", "pm_card_visa", "pay_o2"))
	waitFor(t, "both events", 5*time.Second, func() bool { return len(rcv.all()) == 2 })
	got := rcv.all()
	var order []string
	for _, r := range got {
		var e struct {
			Data struct{ Object struct{ ID string } }
		}
		_ = json.Unmarshal(r.body, &e)
		order = append(order, e.Data.Object.ID)
	}
	if order[0] != b.str("id") || order[1] != a.str("id") || f.Fired() != 1 {
		t.Fatalf("delivery order %v, want %s then %s; fired %d", order, b.str("id"), a.str("id"), f.Fired())
	}
}

func TestRefundWebhook(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	if _, err := p.RegisterWebhook(rcv.server.URL, "charge.refunded"); err != nil {
		t.Fatal(err)
	}
	pi := form(t, p, "/v1/payment_intents", "c", payment("100", "pm_card_visa", "pay_c"))
	wantStatus(t, "refund", form(t, p, "/v1/refunds", "r", url.Values{"payment_intent": {pi.str("id")}}), 200)
	waitFor(t, "charge.refunded", 5*time.Second, func() bool { return len(rcv.all()) == 1 })
	r := rcv.all()[0]
	ev, err := webhook.ConstructEvent(r.body, r.sig, p.WebhookSecret())
	if err != nil || ev.Type != "charge.refunded" || ev.Data.Object["refunded"] != true {
		t.Fatalf("charge.refunded: %v %s", err, r.body)
	}
}

func TestWebhookEndpointsPerAccountAndDeletion(t *testing.T) {
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	// A PSP clock far from wall time must not break signatures.
	p := start(t, Config{Clock: func() time.Time { return day }, Recorder: (*history.Recorder)(nil)})
	mine, theirs := newReceiver(t), newReceiver(t)
	other := p.NewAccount()
	if _, err := p.RegisterWebhook(mine.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RegisterWebhookFor(other, theirs.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RegisterWebhookFor("sk_test_nobody", theirs.server.URL); err == nil {
		t.Fatal("unknown account accepted")
	}
	if _, err := p.RegisterWebhook("ftp://x"); err == nil {
		t.Fatal("ftp URL accepted")
	}
	wantStatus(t, "pay", form(t, p, "/v1/payment_intents", "a", payment("100", "pm_card_visa", "pay_a")), 200)
	waitFor(t, "my delivery", 5*time.Second, func() bool { return len(mine.all()) == 1 })
	if _, err := webhook.ConstructEvent(mine.all()[0].body, mine.all()[0].sig, p.WebhookSecret()); err != nil {
		t.Fatalf("signature with a 2020 PSP clock: %v", err)
	}
	if n := len(theirs.all()); n != 0 {
		t.Fatalf("another account's endpoint got %d events", n)
	}
	list := get(t, p, "/v1/webhook_endpoints")
	data, _ := list.body["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("list: %s", list.raw)
	}
	id := data[0].(map[string]any)["id"].(string)
	a, err := do(t, client(5*time.Second), http.MethodDelete, p.URL()+"/v1/webhook_endpoints/"+id, p.SecretKey(), "", "", "")
	if err != nil || a.status != 200 || a.body["deleted"] != true {
		t.Fatalf("delete: %v %s", err, a.raw)
	}
	wantStatus(t, "pay 2", form(t, p, "/v1/payment_intents", "b", payment("100", "pm_card_visa", "pay_b")), 200)
	if n := len(get(t, p, "/v1/events?type=payment_intent.succeeded").body["data"].([]any)); n != 2 {
		t.Fatalf("payment_intent.succeeded events: %d, want 2", n)
	}
	if n := len(mine.all()); n != 1 {
		t.Fatalf("deleted endpoint got %d deliveries", n)
	}
	if bad := form(t, p, "/v1/webhook_endpoints", "", url.Values{"url": {"http://x"}}); bad.status != 400 || bad.errField("param") != "enabled_events" {
		t.Fatalf("missing enabled_events: %s", bad.raw)
	}
}
