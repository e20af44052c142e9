package fakepsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden from this run")

// TestWireTranscript pins what a client and a webhook receiver see of the
// fake, byte for byte once ids are numbered in order of appearance: the
// Stripe dialect moves between packages (issue 52) without any change a
// client could notice. Regenerate with -update only for a deliberate change
// of the wire, and read the diff.
func TestWireTranscript(t *testing.T) {
	tr := newTranscript(t)
	tr.run()
	got := tr.out.String()
	const golden = "testdata/transcript.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("transcript differs from %s at line %d:\n got: %.600s\nwant: %.600s", golden, i+1, g, w)
			}
		}
	}
}

const (
	trKey    = "sk_test_000000000000000000transcript"
	trSecret = "whsec_transcripttranscripttranscript"
)

type transcript struct {
	t     *testing.T
	p     *fakepsp.PSP
	hc    *http.Client
	out   bytes.Buffer
	ids   map[string]string
	seq   map[string]int
	recv  *receiver
	hook  string
	clock time.Time
}

func newTranscript(t *testing.T) *transcript {
	tr := &transcript{t: t, hc: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		ids: map[string]string{}, seq: map[string]int{}, clock: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p, err := fakepsp.Start(fakepsp.Config{SecretKey: trKey, WebhookSecret: trSecret, RateLimits: fakepsp.RateLimits{Disabled: true},
		Clock:           func() time.Time { return tr.clock },
		WebhookSchedule: fakepsp.WebhookSchedule{Base: 20 * time.Millisecond, Factor: 1, Horizon: time.Minute, Timeout: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	tr.p = p
	tr.recv = &receiver{failFirst: "payment_intent.canceled", tries: map[string]int{}}
	srv := httptest.NewServer(tr.recv)
	t.Cleanup(srv.Close)
	tr.hook = srv.URL + "/hook"
	return tr
}

// ids are numbered per prefix in order of first appearance; a client
// secret's random tail and a request log URL follow their intent's and
// request's numbers.
var (
	idPattern      = regexp.MustCompile(`\b(pi|ch|re|evt|we|cus|txn|req|acct)_[0-9a-f]{12,}`)
	derivedPattern = regexp.MustCompile(`_secret_[0-9a-f]{6}|"invoice_prefix":"[0-9A-F]{8}"|NTI[0-9a-f]{6}|/receipts/payment/[0-9a-f]{18}`)
)

func (tr *transcript) mask(s string) string {
	s = strings.ReplaceAll(s, tr.hook, "http://receiver/hook")
	s = strings.ReplaceAll(s, url.QueryEscape(tr.hook), url.QueryEscape("http://receiver/hook"))
	s = derivedPattern.ReplaceAllStringFunc(s, func(d string) string {
		switch {
		case strings.HasPrefix(d, "_secret_"):
			return "_secret_(tail of the id)"
		case strings.HasPrefix(d, "NTI"):
			return "NTI(tail of the id)"
		case strings.HasPrefix(d, "/receipts/"):
			return "/receipts/payment/(the id)"
		}
		return `"invoice_prefix":"(tail of the id)"`
	})
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if m, ok := tr.ids[id]; ok {
			return m
		}
		prefix := id[:strings.IndexByte(id, '_')]
		tr.seq[prefix]++
		m := prefix + "_" + strconv.Itoa(tr.seq[prefix])
		tr.ids[id] = m
		return m
	})
}

func (tr *transcript) line(format string, args ...any) {
	fmt.Fprintf(&tr.out, "%s\n", tr.mask(fmt.Sprintf(format, args...)))
}

// req sends one request and writes it and its answer: the status, the
// headers a Stripe library reads, and the body.
func (tr *transcript) req(method, path, key string, body string, hdr ...string) map[string]any {
	tr.t.Helper()
	r, err := http.NewRequestWithContext(context.Background(), method, tr.p.URL()+path, strings.NewReader(body))
	if err != nil {
		tr.t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+trKey)
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			r.Header.Del(hdr[i])
		} else {
			r.Header.Set(hdr[i], hdr[i+1])
		}
	}
	what := method + " " + path
	if key != "" {
		what += " key=" + key
	}
	if body != "" {
		what += " " + body
	}
	resp, err := tr.hc.Do(r)
	if err != nil {
		tr.line("%s\n  -> no answer (%s)", what, errClass(err))
		return nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tr.t.Fatal(err)
	}
	var hs []string
	for _, h := range []string{"Content-Type", "Request-Id", "Stripe-Version", "Idempotency-Key", "Idempotent-Replayed", "Original-Request", "Stripe-Should-Retry"} {
		if v := resp.Header.Get(h); v != "" {
			hs = append(hs, h+"="+v)
		}
	}
	tr.line("%s\n  -> %d %s\n  %s", what, resp.StatusCode, strings.Join(hs, " "), bytes.TrimSpace(raw))
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// errClass names a transport error without its random port.
func errClass(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "EOF"):
		return "EOF"
	case strings.Contains(s, "reset"):
		return "connection reset"
	}
	return "transport error"
}

func form(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

func idOf(m map[string]any) string { s, _ := m["id"].(string); return s }

func (tr *transcript) run() {
	t, p := tr.t, tr.p
	tr.line("# authentication")
	tr.req("GET", "/v1/account", "", "", "Authorization", "")
	tr.req("GET", "/v1/account", "", "", "Authorization", "Bearer sk_test_unknownunknownunknown")
	tr.req("GET", "/v1/account", "", "")

	tr.line("# a webhook endpoint and a customer")
	tr.req("POST", "/v1/webhook_endpoints", "", form("url", tr.hook, "enabled_events[0]", "*"))
	cus := idOf(tr.req("POST", "/v1/customers", "cus-1", form("email", "a@example.com", "metadata[k]", "v")))

	tr.line("# create and confirm; the same key replays; other parameters or another path are refused")
	pay := form("amount", "2000", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa", "customer", cus,
		"metadata[payment_id]", "p1", "description", "order 1")
	pi1 := idOf(tr.req("POST", "/v1/payment_intents", "k-1", pay))
	tr.req("POST", "/v1/payment_intents", "k-1", pay)
	tr.req("POST", "/v1/payment_intents", "k-1", form("amount", "2001", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.req("POST", "/v1/refunds", "k-1", form("payment_intent", pi1))
	tr.req("POST", "/v1/payment_intents", strings.Repeat("x", 256), pay)

	tr.line("# validation before execution saves nothing")
	tr.req("POST", "/v1/payment_intents", "k-bad", form("amount", "100", "currency", "usd", "colour", "blue"))
	tr.req("POST", "/v1/payment_intents", "k-json", `{"amount":100}`, "Content-Type", "application/json")
	tr.req("POST", "/v1/payment_intents", "k-cur", form("amount", "100", "currency", "zzz"))
	tr.req("POST", "/v1/payment_intents", "", form("amount", "0", "currency", "usd"))
	tr.req("GET", "/v1/account", "", "", "Stripe-Version", "1999-01-01")

	tr.line("# a decline leaves a failed charge and a 402")
	tr.req("POST", "/v1/payment_intents", "k-dec", form("amount", "700", "currency", "usd", "confirm", "true", "payment_method", "pm_card_chargeDeclined"))

	tr.line("# manual capture: authorize, capture part, capture again")
	pi2 := idOf(tr.req("POST", "/v1/payment_intents", "k-auth", form("amount", "5000", "currency", "usd", "confirm", "true",
		"payment_method", "pm_card_visa", "capture_method", "manual", "metadata[payment_id]", "p2")))
	tr.req("POST", "/v1/payment_intents/"+pi2+"/capture", "k-cap", form("amount_to_capture", "6000"))
	tr.req("POST", "/v1/payment_intents/"+pi2+"/capture", "k-cap2", form("amount_to_capture", "4000", "metadata[captured]", "yes"))
	tr.req("POST", "/v1/payment_intents/"+pi2+"/capture", "k-cap3", "")

	tr.line("# cancel an authorization; cancel again")
	pi3 := idOf(tr.req("POST", "/v1/payment_intents", "k-auth3", form("amount", "300", "currency", "eur", "confirm", "true",
		"payment_method", "pm_card_visa", "capture_method", "manual")))
	tr.req("POST", "/v1/payment_intents/"+pi3+"/cancel", "k-can", form("cancellation_reason", "nonsense"))
	tr.req("POST", "/v1/payment_intents/"+pi3+"/cancel", "k-can", form("cancellation_reason", "requested_by_customer"))
	tr.req("POST", "/v1/payment_intents/"+pi3+"/cancel", "k-can2", "")

	tr.line("# create, update, confirm; update after success")
	pi4 := idOf(tr.req("POST", "/v1/payment_intents", "k-4", form("amount", "900", "currency", "usd")))
	tr.req("POST", "/v1/payment_intents/"+pi4, "k-4u", form("amount", "950", "metadata[payment_id]", "p4", "description", "changed"))
	tr.req("POST", "/v1/payment_intents/"+pi4+"/confirm", "k-4c", form("payment_method", "pm_card_visa"))
	tr.req("POST", "/v1/payment_intents/"+pi4, "k-4u2", form("amount", "1000"))
	tr.req("POST", "/v1/payment_intents/"+pi4+"/confirm", "k-4c2", "")

	tr.line("# refunds: part, too much, the rest, again")
	tr.req("POST", "/v1/refunds", "k-r1", form("payment_intent", pi1, "amount", "500", "reason", "requested_by_customer", "metadata[refund_request]", "rr1"))
	tr.req("POST", "/v1/refunds", "k-r2", form("payment_intent", pi1, "amount", "5000"))
	tr.req("POST", "/v1/refunds", "k-r3", form("payment_intent", pi1))
	tr.req("POST", "/v1/refunds", "k-r4", form("payment_intent", pi1))
	tr.req("POST", "/v1/refunds", "k-r5", form("charge", "ch_nosuchcharge"))

	tr.line("# faults: a 500 before the charge, a 500 after it, a lost reply, a rate limit; each replayed")
	f := p.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.Error500BeforeCharge, Match: fakepsp.Match{PSPKey: "k-f1", Times: 1}})
	tr.req("POST", "/v1/payment_intents", "k-f1", form("amount", "110", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.req("POST", "/v1/payment_intents", "k-f1", form("amount", "110", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.line("fault fired %d", f.Fired())
	f = p.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.Error500AfterCharge, Match: fakepsp.Match{PSPKey: "k-f2", Times: 1}})
	tr.req("POST", "/v1/payment_intents", "k-f2", form("amount", "120", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.req("POST", "/v1/payment_intents", "k-f2", form("amount", "120", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.line("fault fired %d", f.Fired())
	f = p.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.LoseReply, Match: fakepsp.Match{PSPKey: "k-f3", Times: 1}})
	tr.req("POST", "/v1/payment_intents", "k-f3", form("amount", "130", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.req("POST", "/v1/payment_intents", "k-f3", form("amount", "130", "currency", "usd", "confirm", "true", "payment_method", "pm_card_visa"))
	tr.line("fault fired %d", f.Fired())
	f = p.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.RateLimit, Match: fakepsp.Match{PSPKey: "k-f4", Times: 1}})
	tr.req("POST", "/v1/payment_intents", "k-f4", form("amount", "140", "currency", "usd"))
	tr.req("POST", "/v1/payment_intents", "k-f4", form("amount", "140", "currency", "usd"))
	tr.line("fault fired %d", f.Fired())

	tr.line("# reads, lists, expand, search")
	tr.req("GET", "/v1/payment_intents/"+pi1+"?expand[]=latest_charge.balance_transaction&expand[]=customer", "", "")
	tr.req("GET", "/v1/payment_intents/"+pi1+"?expand[]=amount", "", "")
	tr.req("GET", "/v1/payment_intents/pi_0000000000000000000", "", "")
	tr.req("GET", "/v1/payment_intents?limit=2", "", "")
	tr.req("GET", "/v1/charges?limit=3", "", "")
	tr.req("GET", "/v1/charges?payment_intent="+pi2, "", "")
	tr.req("GET", "/v1/refunds?limit=2&expand[]=data.balance_transaction", "", "")
	tr.req("GET", "/v1/balance_transactions?limit=3", "", "")
	tr.req("GET", "/v1/customers", "", "")
	tr.req("GET", "/v1/payment_methods", "", "")
	tr.req("GET", "/v1/payment_methods/pm_card_visa", "", "")
	tr.req("GET", "/v1/events?limit=4&type=charge.*", "", "")
	tr.req("GET", "/v1/payment_intents/search?query="+url.QueryEscape("metadata['payment_id']:'p2'"), "", "")
	tr.req("GET", "/v1/payment_intents/search?query="+url.QueryEscape("status:'canceled'"), "", "")
	tr.req("GET", "/v1/payment_intents/search?query="+url.QueryEscape("nonsense"), "", "")
	tr.req("GET", "/v1/webhook_endpoints", "", "")
	tr.req("GET", "/v1/nothing/here", "", "")

	tr.line("# every event reached the receiver")
	var evs []any
	all := tr.req("GET", "/v1/events?limit=100", "", "")
	evs, _ = all["data"].([]any)
	deadline := time.Now().Add(20 * time.Second)
	for tr.recv.acked() < len(evs) || len(p.Deliveries()) < len(evs)+tr.recv.failedOnce() {
		if time.Now().After(deadline) {
			t.Fatalf("receiver acked %d of %d events", tr.recv.acked(), len(evs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ls []string
	for _, l := range tr.recv.lines() {
		ls = append(ls, tr.mask(l))
	}
	sort.Strings(ls)
	for _, l := range ls {
		tr.line("%s", l)
	}
	var ds []string
	for _, d := range p.Deliveries() {
		ds = append(ds, tr.mask(fmt.Sprintf("delivery %s %s attempt=%d status=%d signature=%s", d.EventID, d.EventType, d.Attempt, d.Status, d.Signature)))
	}
	sort.Strings(ds)
	for _, d := range ds {
		tr.line("%s", d)
	}

	tr.line("# ground truth")
	for _, op := range p.History() {
		op.Call, op.Return = 0, nil
		b, _ := json.Marshal(op)
		tr.line("%s", b)
	}
	tr.line("# call log")
	for _, c := range p.Calls() {
		tr.line("%s %s key=%q status=%d replayed=%v executed=%v", c.Endpoint, c.Path, c.IdempotencyKey, c.Status, c.Replayed, c.Executed)
	}
}
