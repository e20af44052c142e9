package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/jsonlist"
)

// DefaultWebhookSecret signs the probe's event for a running service, which
// must be configured with it (a started command gets $PSP_WEBHOOK_SECRET).
const DefaultWebhookSecret = "whsec_idemcheck"

// hookSeen is what the webhook probe sent and read back.
type hookSeen struct {
	event    fakepsp.WebhookEvent
	delivery core.Delivery
	amount   int64
	// credits: the rows read back (nil when no --credits); creditsErr why not.
	credits    []int64
	creditsErr string
	list       string
}

// probeWebhook delivers the success event of the first probed payment
// (Stripe's payment_intent.succeeded, Adyen's AUTHORISATION), signed, to
// the handler, and reads its credits back.
func (p *prober) probeWebhook(ctx context.Context, s *seen) (*hookSeen, error) {
	charges := p.psp.Charges()
	if len(charges) == 0 || charges[0].Output == nil {
		return nil, fail("--webhook: no probed payment was charged at fakepsp, so there is no event to send")
	}
	c := charges[0]
	pi := p.psp.PaymentIntentOfCharge(c.Output.ChargeID)
	h := &hookSeen{amount: *c.Input.Amount}
	success := formats(p.o.PSP).SuccessEvent()
	for _, ev := range p.psp.WebhookEvents(pi) {
		if ev.Type == success && h.event.ID == "" {
			h.event = ev
		}
	}
	if h.event.ID == "" {
		return nil, fail("--webhook: fakepsp raised no %s for %s", success, pi)
	}
	u := p.base + p.o.Webhook
	d, err := p.psp.Send(ctx, h.event.ID, fakepsp.SendOptions{URL: u, Via: "probe", Timeout: p.o.Timeout})
	if err != nil {
		return nil, fail("--webhook %s: %v", p.o.Webhook, err)
	}
	h.delivery = d
	p.logf("  probe webhook %s %s -> %s", h.event.Type, u, deliveryText(d))
	if d.Err != "" {
		return nil, fail("--webhook: POST %s (a signed %s) got no answer: %s", u, h.event.Type, d.Err)
	}
	if p.o.Credits == "" {
		return h, nil
	}
	paymentID := ""
	if s.create != nil {
		paymentID = s.create.PaymentID
	}
	cu := driver.Fill(creditsURL(p.o, p.base), map[string]string{"order_id": url.QueryEscape(c.Input.Metadata["order_id"]),
		"payment_id": url.QueryEscape(paymentID), "psp_payment_id": url.QueryEscape(pi)})
	// A handler may credit from a queue: give it a moment.
	for end := time.Now().Add(3 * time.Second); ; {
		h.credits, h.list, err = readCredits(ctx, cu)
		h.creditsErr = ""
		if err != nil {
			h.creditsErr = err.Error()
		}
		if len(h.credits) > 0 || time.Now().After(end) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return h, nil
}

func deliveryText(d core.Delivery) string {
	if d.Err != "" {
		return "no answer: " + d.Err
	}
	return fmt.Sprint(d.Status)
}

// readCredits GETs u and finds the list of rows in whatever shape the
// answer has (jsonlist.Find: a bare list, its one array member, a count and
// entries); each row's amount member. The path found is what init writes
// as ledger.credits.list.
func readCredits(ctx context.Context, u string) ([]int64, string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 {
		return nil, "", fmt.Errorf("GET %s answered %d", u, resp.StatusCode)
	}
	list, err := jsonlist.Find(b)
	if err != nil {
		return nil, "", fmt.Errorf("GET %s: no list of credit rows for ledger.credits.list: %v; got %.200s", u, err, b)
	}
	raw := b
	if list != "" {
		v, _ := driver.JSONPath(b, list)
		raw = []byte(v)
	}
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, list, fmt.Errorf("GET %s: the list at %q is not a list of JSON objects: %v", u, list, err)
	}
	var out []int64
	for _, r := range rows {
		if a, ok := r["amount"].(float64); ok {
			out = append(out, int64(a))
		} else {
			return nil, list, fmt.Errorf("GET %s: a row has no numeric amount member: %v", u, r)
		}
	}
	return out, list, nil
}

// renderWebhook writes the webhook section and the credits read, with what
// the probe saw.
func renderWebhook(o *Options, h *hookSeen) string {
	if h == nil {
		return ""
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("\n# seen: a signed %s (%s) to %s answered %s\n", h.event.Type, h.event.ID, o.Webhook, deliveryText(h.delivery))
	if h.delivery.Status < 200 || h.delivery.Status >= 300 {
		w("# THE HANDLER DID NOT ACKNOWLEDGE A VALIDLY SIGNED EVENT: the W checks will be inconclusive until it does\n")
	}
	w("webhook:\n  path: %s\n", q(o.Webhook))
	if len(o.Command) == 0 {
		w("  secret: %s   # the running service verifies with this secret\n", q(o.WebhookSecret))
	}
	switch {
	case o.Credits == "":
		w("# ledger.credits: not given (--credits URL): every W check is n/a until you set it (docs/CONFIG.md)\n")
		return b.String()
	case h.creditsErr != "":
		w("# seen: reading the credits failed: %s\n", comment(h.creditsErr))
	default:
		w("# seen: the credits read back after one delivery: %v (for a charge of %d)\n", h.credits, h.amount)
		if len(h.credits) != 1 || h.credits[0] != h.amount {
			w("# THE CREDITS DO NOT SHOW ONE CREDIT OF THE CHARGED AMOUNT: check the URL and amount_field\n")
		}
	}
	w("ledger:\n  credits:\n    url: %s\n", q(creditsURL(o, strings.TrimRight(strings.ReplaceAll(o.URL, "${PORT}", "${PORT_0}"), "/"))))
	if h.list != "" {
		w("    list: %s\n", h.list)
	}
	return b.String()
}

// creditsURL is --credits as a URL: a path is on the service's base.
func creditsURL(o *Options, base string) string {
	if strings.HasPrefix(o.Credits, "/") {
		return base + o.Credits
	}
	return o.Credits
}
