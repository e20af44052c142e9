package fakepsp

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

func TestGroundTruthReachesRecorderHookAndHistory(t *testing.T) {
	rec := history.NewRecorder()
	var mu sync.Mutex
	var hooked []history.Op
	p := start(t, Config{Recorder: rec, OnOp: func(op history.Op) { mu.Lock(); hooked = append(hooked, op); mu.Unlock() }})
	before := history.Now()
	pi := form(t, p, "/v1/payment_intents", "pay_7:charge", payment("3000", "pm_card_visa", "pay_7"))
	wantStatus(t, "charge", pi, 200)
	wantStatus(t, "refund", form(t, p, "/v1/refunds", "pay_7:cancel:refund", url.Values{"payment_intent": {pi.str("id")}}), 200)
	after := history.Now()

	ops := p.History()
	if len(ops) != 2 || ops[0].Op != history.OpCharge || ops[1].Op != history.OpRefund {
		t.Fatalf("history: %+v", ops)
	}
	c := ops[0]
	if c.Process != "psp" || c.Call < before || c.Call > after || c.Return == nil || *c.Return != c.Call ||
		c.PaymentID != "pay_7" || c.Intent != "/pay:phone-1:pay_7" || c.Input.PSPKey != "pay_7:charge" ||
		*c.Input.Amount != 3000 || c.Output.ChargeID != pi.str("latest_charge") || c.Input.Metadata["payment_id"] != "pay_7" {
		t.Fatalf("charge op: %+v", c)
	}
	if got := rec.History(); len(got) != 2 {
		t.Fatalf("recorder got %d ops", len(got))
	}
	if err := p.RecorderErr(); err != nil {
		t.Fatalf("recorder refused: %v", err)
	}
	mu.Lock()
	if len(hooked) != 2 {
		t.Fatalf("hook got %d ops", len(hooked))
	}
	mu.Unlock()

	resp, err := client(5 * time.Second).Get(p.URL() + "/_psp/history")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	h, err := history.ReadJSONL(resp.Body)
	if err != nil {
		t.Fatalf("/_psp/history is not a valid history: %v", err)
	}
	if len(h) != 2 || h[1].Input.ChargeID != c.Output.ChargeID || h[1].Output.RefundID == "" {
		t.Fatalf("/_psp/history: %+v", h)
	}
	var buf bytes.Buffer
	if err := p.WriteHistory(&buf); err != nil {
		t.Fatal(err)
	}
	if h2, err := history.ReadJSONL(&buf); err != nil || len(h2) != 2 {
		t.Fatalf("WriteHistory: %v %d", err, len(h2))
	}
	only, err := client(5 * time.Second).Get(p.URL() + "/_psp/history?op=refund")
	if err != nil {
		t.Fatal(err)
	}
	defer only.Body.Close()
	if h3, err := history.ReadJSONL(only.Body); err != nil || len(h3) != 1 || h3[0].Op != history.OpRefund {
		t.Fatalf("history?op=refund: %v %+v", err, h3)
	}
}

func TestCloseEndsHeldRequestsAndWebhookLoops(t *testing.T) {
	p, err := Start(Config{RateLimits: RateLimits{Disabled: true}, WebhookSchedule: WebhookSchedule{Base: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t, http.StatusInternalServerError)
	if _, err := p.RegisterWebhook(rcv.server.URL, "payment_intent.succeeded"); err != nil {
		t.Fatal(err)
	}
	hold := p.Faults().Arm(FaultSpec{Kind: HoldReply, Match: Match{PSPKey: "held"}})
	gate := p.Faults().Arm(FaultSpec{Kind: GateBeforeCharge, Match: Match{PSPKey: "gated"}})
	errs := make(chan error, 2)
	for _, k := range []string{"held", "gated"} {
		go func() {
			_, err := do(t, client(30*time.Second), http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), k, "application/x-www-form-urlencoded", payment("100", "pm_card_visa", "pay_"+k).Encode())
			errs <- err
		}()
	}
	waitFor(t, "both requests stuck", 5*time.Second, func() bool { return hold.Fired() == 1 && gate.Fired() == 1 })
	waitFor(t, "the failed first delivery (retry due in an hour)", 5*time.Second, func() bool { return len(p.Deliveries()) == 1 })
	p.Pause() // a paused PSP must close too
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatal("a stuck request got an answer from a closed PSP")
		}
	}
	assertNoLeaks(t)
	if _, err := p.RegisterWebhook(rcv.server.URL); err == nil {
		t.Fatal("RegisterWebhook after Close succeeded")
	}
}
