package adyen_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/adyen"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// rig is a fakepsp speaking Adyen, with the notifications it raised in
// order, as its own event log has them.
type rig struct {
	p      *fakepsp.PSP
	faults *core.Faults
}

func newRig(t *testing.T) *rig {
	t.Helper()
	p, err := fakepsp.Start(fakepsp.Config{Dialect: "adyen", RateLimits: fakepsp.RateLimits{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return &rig{p: p, faults: p.Faults()}
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func (g *rig) post(t *testing.T, path, key, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.p.URL()+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", g.p.SecretKey())
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %d %q is not JSON", path, resp.StatusCode, raw)
	}
	return reply{resp.StatusCode, resp.Header, m}
}

// codes are the notifications raised about payment psp, in order, as
// eventCode/success.
func (g *rig) codes(t *testing.T, psp any) []string {
	t.Helper()
	var out []string
	for _, ev := range g.p.WebhookEvents(psp.(string)) {
		var n adyen.Notification
		if err := json.Unmarshal(ev.Raw, &n); err != nil || len(n.Items) != 1 {
			t.Fatalf("event %s is not a batch of one: %s", ev.ID, ev.Raw)
		}
		out = append(out, n.Items[0].Item.EventCode+"/"+n.Items[0].Item.Success)
	}
	return out
}

func payBody(amount int, ref, holder string, manual bool) string {
	ad := ""
	if manual {
		ad = `,"additionalData":{"manualCapture":"true"}`
	}
	return `{"amount":{"value":` + itoa(amount) + `,"currency":"EUR"},"reference":"` + ref + `","merchantAccount":"IdemcheckECOM",` +
		`"paymentMethod":{"type":"scheme","number":"4111111145551142","expiryMonth":"03","expiryYear":"2030","cvc":"737","holderName":"` + holder + `"}` + ad + `}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPaymentOnceUnderAKey: an authorised payment is one charge in the
// ground truth; its retry under the key gets the first answer, byte for
// byte in its fields, even with another body (Adyen documents no mismatch
// error), and charges nothing more. The key is echoed.
func TestPaymentOnceUnderAKey(t *testing.T) {
	g := newRig(t)
	first := g.post(t, "/v71/payments", "k-1", payBody(1130, "order-1", "J Smith", false))
	if first.status != 200 || first.body["resultCode"] != adyen.ResultAuthorised || first.header.Get("Idempotency-Key") != "k-1" {
		t.Fatalf("first: %d %v %v", first.status, first.body, first.header)
	}
	again := g.post(t, "/v71/payments", "k-1", payBody(1130, "order-1", "J Smith", false))
	other := g.post(t, "/v71/payments", "k-1", payBody(999, "order-2", "J Smith", false))
	for _, r := range []reply{again, other} {
		if r.status != 200 || r.body["pspReference"] != first.body["pspReference"] {
			t.Fatalf("retry under the key: %d %v, want the first answer %v", r.status, r.body, first.body)
		}
	}
	if n := len(g.p.Charges()); n != 1 {
		t.Fatalf("%d charges in the ground truth, want 1", n)
	}
	if got := strings.Join(g.codes(t, first.body["pspReference"]), " "); got != "AUTHORISATION/true" {
		t.Fatalf("notifications %q", got)
	}
}

// TestRefusedCardMovesNothing: a refusal is 200 with resultCode Refused,
// its reason and code, no charge, and an AUTHORISATION with success false.
func TestRefusedCardMovesNothing(t *testing.T) {
	g := newRig(t)
	r := g.post(t, "/v71/payments", "k-2", payBody(500, "order-3", "NOT_ENOUGH_BALANCE", false))
	if r.status != 200 || r.body["resultCode"] != adyen.ResultRefused || r.body["refusalReason"] != "Not enough balance" || r.body["refusalReasonCode"] != "12" {
		t.Fatalf("refusal: %d %v", r.status, r.body)
	}
	if n := len(g.p.Charges()); n != 0 {
		t.Fatalf("%d charges, want 0", n)
	}
	if got := strings.Join(g.codes(t, r.body["pspReference"]), " "); got != "AUTHORISATION/false" {
		t.Fatalf("notifications %q", got)
	}
}

// TestManualCaptureAndRefunds: a manual payment is only authorised; its
// capture is 201 "received" and the one charge; a refund beyond what was
// captured is received too, and its notification says it failed; a
// capture of a payment already captured likewise.
func TestManualCaptureAndRefunds(t *testing.T) {
	g := newRig(t)
	pay := g.post(t, "/v71/payments", "k-3", payBody(2000, "order-4", "J Smith", true))
	psp, _ := pay.body["pspReference"].(string)
	if pay.body["resultCode"] != adyen.ResultAuthorised || len(g.p.Charges()) != 0 {
		t.Fatalf("authorise: %v, %d charges", pay.body, len(g.p.Charges()))
	}
	mod := func(kind, key, body string) reply {
		return g.post(t, "/v71/payments/"+psp+"/"+kind, key, body)
	}
	c := mod(adyen.ModCapture, "k-4", `{"merchantAccount":"IdemcheckECOM","amount":{"value":1500,"currency":"EUR"},"reference":"cap-1"}`)
	if c.status != 201 || c.body["status"] != adyen.StatusReceived || c.body["paymentPspReference"] != psp {
		t.Fatalf("capture: %d %v", c.status, c.body)
	}
	charges := g.p.Charges()
	if len(charges) != 1 || *charges[0].Input.Amount != 1500 || charges[0].Input.PSPKey != "k-4" {
		t.Fatalf("charges after the capture: %+v", charges)
	}
	again := mod(adyen.ModCapture, "k-5", `{"merchantAccount":"IdemcheckECOM","amount":{"value":500,"currency":"EUR"}}`)
	big := mod(adyen.ModRefund, "k-6", `{"merchantAccount":"IdemcheckECOM","amount":{"value":1600,"currency":"EUR"}}`)
	ok := mod(adyen.ModRefund, "k-7", `{"merchantAccount":"IdemcheckECOM","amount":{"value":1000,"currency":"EUR"}}`)
	for _, r := range []reply{again, big, ok} {
		if r.status != 201 || r.body["status"] != adyen.StatusReceived {
			t.Fatalf("modification: %d %v", r.status, r.body)
		}
	}
	if n, refunds := len(g.p.Charges()), g.p.Refunds(); n != 1 || len(refunds) != 1 || *refunds[0].Input.Amount != 1000 {
		t.Fatalf("%d charges and refunds %+v, want 1 charge and one refund of 1000", n, refunds)
	}
	want := "AUTHORISATION/true CAPTURE/true CAPTURE/false REFUND/false REFUND/true"
	if got := strings.Join(g.codes(t, psp), " "); got != want {
		t.Fatalf("notifications %q, want %q", got, want)
	}
	// A harness holds a payment's events by the payment's amount: every
	// event about it carries 2000, the refunds' and captures' too.
	for _, ev := range g.p.WebhookEvents(psp) {
		if ev.Amount != 2000 {
			t.Fatalf("event %s carries amount %d, want the payment's 2000", ev.ID, ev.Amount)
		}
	}
	rev := mod(adyen.ModReversal, "k-8", `{"merchantAccount":"IdemcheckECOM"}`)
	if refunds := g.p.Refunds(); rev.status != 201 || len(refunds) != 2 || *refunds[1].Input.Amount != 500 {
		t.Fatalf("reversal of a captured payment: %d, refunds %+v, want the 500 left", rev.status, refunds)
	}
}

// TestKeyInUseAndRefusals: a second request under a key whose first still
// runs is 422 with errorCode 704 and Transient-Error true; a key over 64
// characters, a missing API key and a missing field are refused in
// Adyen's error body; none of them charges.
func TestKeyInUseAndRefusals(t *testing.T) {
	g := newRig(t)
	f, err := g.faults.Add(core.FaultSpec{Kind: core.GateBeforeCharge, Match: core.Match{PSPKey: "k-slow"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan reply)
	go func() { done <- g.post(t, "/v71/payments", "k-slow", payBody(700, "order-5", "J Smith", false)) }()
	if err := f.WaitFired(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	busy := g.post(t, "/v71/payments", "k-slow", payBody(700, "order-5", "J Smith", false))
	if busy.status != 422 || busy.body["errorCode"] != "704" || busy.body["message"] != "request already processed or in progress" || busy.header.Get("Transient-Error") != "true" {
		t.Fatalf("in use: %d %v %v", busy.status, busy.body, busy.header)
	}
	f.Release()
	if r := <-done; r.status != 200 || r.body["resultCode"] != adyen.ResultAuthorised {
		t.Fatalf("the first request: %d %v", r.status, r.body)
	}
	long := g.post(t, "/v71/payments", strings.Repeat("k", 65), payBody(100, "order-6", "J Smith", false))
	if long.status != 400 || long.body["errorType"] != "validation" {
		t.Fatalf("a 65-character key: %d %v", long.status, long.body)
	}
	if ok := g.post(t, "/v71/payments", strings.Repeat("k", 64), payBody(100, "order-7", "J Smith", false)); ok.status != 200 {
		t.Fatalf("a 64-character key: %d %v", ok.status, ok.body)
	}
	missing := g.post(t, "/v71/payments", "k-9", `{"reference":"order-8","merchantAccount":"IdemcheckECOM","paymentMethod":{"type":"scheme"}}`)
	if missing.status != 422 || missing.body["errorCode"] != adyen.CodeInvalid || missing.body["message"] != "Required field 'amount' is not provided." {
		t.Fatalf("no amount: %d %v", missing.status, missing.body)
	}
	req, _ := http.NewRequest(http.MethodPost, g.p.URL()+"/v71/payments", strings.NewReader(payBody(100, "order-9", "J Smith", false)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(raw), `"errorCode":"000"`) || !strings.Contains(string(raw), `"errorType":"security"`) {
		t.Fatalf("no API key: %d %s", resp.StatusCode, raw)
	}
	if n := len(g.p.Charges()); n != 2 {
		t.Fatalf("%d charges, want 2 (the slow one and the 64-character key's)", n)
	}
}

// TestNotificationsThroughThePSP: a webhook endpoint registered with a PSP
// speaking Adyen receives the payment's AUTHORISATION as a batch of one,
// signed with the PSP's HMAC key so that the item validates, on Adyen's
// retry table by default.
func TestNotificationsThroughThePSP(t *testing.T) {
	g := newRig(t)
	got := make(chan adyen.Notification, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var n adyen.Notification
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Errorf("a delivery that is not JSON: %s", raw)
		}
		got <- n
		w.WriteHeader(http.StatusAccepted)
	}))
	defer recv.Close()
	if _, err := g.p.RegisterWebhook(recv.URL); err != nil {
		t.Fatal(err)
	}
	pay := g.post(t, "/v70/payments", "k-w", payBody(321, "order-w", "J Smith", false))
	var n adyen.Notification
	select {
	case n = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
	}
	if len(n.Items) != 1 || n.Live != "false" {
		t.Fatalf("notification %+v, want one item, live \"false\"", n)
	}
	it := n.Items[0].Item
	if it.EventCode != adyen.EventAuthorisation || it.PSPReference != pay.body["pspReference"] || it.Success != "true" || it.Amount.Value != 321 || it.MerchantReference != "order-w" {
		t.Fatalf("item %+v", it)
	}
	if !adyen.ValidSignature(it, g.p.WebhookSecret()) {
		t.Fatalf("the item does not validate with the PSP's HMAC key: %+v", it.AdditionalData)
	}
	// The delivery is logged once its attempt returns, after the receiver saw it.
	deadline := time.After(10 * time.Second)
	for {
		added := g.p.DeliveryAdded()
		if len(g.p.Deliveries()) > 0 {
			break
		}
		select {
		case <-added:
		case <-deadline:
			t.Fatal("the delivery was never logged")
		}
	}
	if d := g.p.Deliveries(); len(d) != 1 || d[0].Status != http.StatusAccepted || d[0].EventID != it.DedupKey() {
		t.Fatalf("deliveries %+v", d)
	}
}

// TestRetryAfterAnErrorGetsTheResult: a 500 after the payment was made
// (a fault after the effect) is answered to the client; its retry under
// the same key gets the payment's own result, and nothing is charged twice.
func TestRetryAfterAnErrorGetsTheResult(t *testing.T) {
	g := newRig(t)
	if _, err := g.faults.Add(core.FaultSpec{Kind: core.Error500AfterCharge, Match: core.Match{PSPKey: "k-err", Times: 1}}); err != nil {
		t.Fatal(err)
	}
	first := g.post(t, "/v71/payments", "k-err", payBody(900, "order-e", "J Smith", false))
	if first.status != 500 || first.body["errorType"] != "internal" {
		t.Fatalf("first: %d %v", first.status, first.body)
	}
	again := g.post(t, "/v71/payments", "k-err", payBody(900, "order-e", "J Smith", false))
	if again.status != 200 || again.body["resultCode"] != adyen.ResultAuthorised {
		t.Fatalf("retry: %d %v", again.status, again.body)
	}
	if n := len(g.p.Charges()); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
}

// TestRateLimitFaultByAmount: a rate-limit fault armed for one amount
// refuses that payment with 429 and Adyen's body, and no other.
func TestRateLimitFaultByAmount(t *testing.T) {
	g := newRig(t)
	f, err := g.faults.Add(core.FaultSpec{Kind: core.RateLimit, Match: core.Match{Amount: 777, Op: "charge", Times: 1}})
	if err != nil {
		t.Fatal(err)
	}
	other := g.post(t, "/v71/payments", "k-o", payBody(778, "order-o", "J Smith", false))
	limited := g.post(t, "/v71/payments", "k-l", payBody(777, "order-l", "J Smith", false))
	again := g.post(t, "/v71/payments", "k-l", payBody(777, "order-l", "J Smith", false))
	if other.status != 200 || limited.status != 429 || limited.body["errorType"] != "validation" || again.status != 200 || f.Fired() != 1 {
		t.Fatalf("other %d, limited %d %v, again %d, fired %d", other.status, limited.status, limited.body, again.status, f.Fired())
	}
	if n := len(g.p.Charges()); n != 2 {
		t.Fatalf("%d charges, want 2", n)
	}
}
