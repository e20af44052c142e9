package fakepsp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

func TestStripeVersionHeader(t *testing.T) {
	p := start(t, Config{})
	for _, tc := range []struct {
		version string
		status  int
		echo    string
	}{
		{"", 200, DefaultAPIVersion},
		{"2026-11-18.endive", 200, "2026-11-18.endive"},
		{"2024-06-20", 200, "2024-06-20"},
		{"latest", 400, DefaultAPIVersion},
		{"2026-13-01.dahlia", 400, DefaultAPIVersion},
	} {
		req, _ := http.NewRequest(http.MethodGet, p.URL()+"/v1/account", nil)
		req.Header.Set("Authorization", "Bearer "+p.SecretKey())
		if tc.version != "" {
			req.Header.Set("Stripe-Version", tc.version)
		}
		resp, err := client(5 * time.Second).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Stripe-Version") != tc.echo {
			t.Errorf("Stripe-Version %q: %d %q, want %d %q", tc.version, resp.StatusCode, resp.Header.Get("Stripe-Version"), tc.status, tc.echo)
		}
	}
}

// An endpoint created with api_version gets its events in that version:
// stripe-go v85 (train dahlia) verifies a dahlia endpoint's events and
// refuses an endive endpoint's as of another version, which the stripe-go
// major pinned to endive accepts.
func TestWebhookEndpointAPIVersion(t *testing.T) {
	p := start(t, Config{})
	sc := stripeClient(p, p.SecretKey())
	ctx := context.Background()
	dahlia, endive := newReceiver(t), newReceiver(t)
	for rcv, v := range map[*receiver]string{dahlia: "2026-02-25.dahlia", endive: "2026-11-18.endive"} {
		we, err := sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{URL: stripe.String(rcv.server.URL),
			EnabledEvents: []*string{stripe.String("payment_intent.succeeded")}, APIVersion: stripe.String(v)})
		if err != nil || we.APIVersion != v {
			t.Fatalf("endpoint %s: %+v %v", v, we, err)
		}
	}
	bad := form(t, p, "/v1/webhook_endpoints", "", url.Values{"url": {dahlia.server.URL}, "enabled_events[]": {"*"}, "api_version": {"soon"}})
	if bad.status != 400 || bad.errField("param") != "api_version" {
		t.Fatalf("api_version soon: %d %s", bad.status, bad.raw)
	}
	wantStatus(t, "charge", form(t, p, "/v1/payment_intents", "", payment("100", "pm_card_visa", "v1")), 200)
	waitFor(t, "both deliveries", 5*time.Second, func() bool { return len(dahlia.all()) == 1 && len(endive.all()) == 1 })
	d := dahlia.all()[0]
	ev, err := webhook.ConstructEvent(d.body, d.sig, p.WebhookSecret())
	if err != nil || ev.APIVersion != "2026-02-25.dahlia" {
		t.Fatalf("dahlia endpoint's event: %s %v", ev.APIVersion, err)
	}
	e := endive.all()[0]
	_, err = webhook.ConstructEvent(e.body, e.sig, p.WebhookSecret())
	if err == nil || !strings.Contains(err.Error(), "2026-11-18.endive") {
		t.Fatalf("stripe-go v85 on an endive event: %v", err)
	}
	ev, err = webhook.ConstructEventWithOptions(e.body, e.sig, p.WebhookSecret(), webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
	if err != nil || ev.APIVersion != "2026-11-18.endive" || ev.Type != "payment_intent.succeeded" {
		t.Fatalf("endive event: %+v %v", ev, err)
	}
}
