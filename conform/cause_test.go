package conform

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// wantInconclusive asserts each check of want is inconclusive with its
// words in the reason: a cause that is the service's (it made no PSP call,
// it did not use its link, its endpoint failed) is never idemcheck's error
// (issue 50).
func wantInconclusive(t *testing.T, rep *report.Report, out string, want map[string]string) {
	t.Helper()
	if rep == nil {
		t.Fatalf("no report: %s", out)
	}
	for id, words := range want {
		i := slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == id })
		if i < 0 {
			t.Errorf("%s did not run", id)
			continue
		}
		r := rep.Results[i]
		why := r.Precondition + " | " + r.Why
		if r.Verdict != scenario.Inconclusive || !strings.Contains(why, words) {
			t.Errorf("%s: %s (%s), want inconclusive saying %q", id, r.Verdict, why, words)
		}
	}
}

// A refund path the service does not serve: its refund never reaches the
// PSP, in S-multistep and in W-order alike.
func TestNoPSPRefundIsInconclusive(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", extra: webhookYAML}
	text := strings.Replace(f.configText(t), "path: /payments/{{payment_id}}/refund", "path: /payments/{{payment_id}}/refund-nope", 1)
	_, rep, out := runText(t, text, Options{Only: []string{"S-multistep", "W-order"}})
	wantInconclusive(t, rep, out, map[string]string{
		"S-multistep": "the service made no PSP refund of payment",
		"W-order":     "the service made no PSP refund of",
	})
}

// A create the service answers 500: nothing to refund.
func TestFailedCreateLeavesMultiStepInconclusive(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", args: []string{"--key-length", "3"}}
	_, rep, out := f.run(t, Options{Only: []string{"S-multistep"}})
	wantInconclusive(t, rep, out, map[string]string{"S-multistep": "the create succeeded with a payment id, so there was a charge to refund: it was answered 500"})
}

// A service not pointed at its PSP link ($PSP_ADDR): the link carries
// nothing, so its lost reply proves nothing.
func TestUnusedLinkIsInconclusive(t *testing.T) {
	t.Parallel()
	_, rep, out := fixture{flaw: "none", extra: pspLink}.run(t, Options{Only: []string{"S-deps"}})
	wantInconclusive(t, rep, out, map[string]string{"S-deps": "no reply of the create crossed link PSP"})
}

// An unreadable credits endpoint in W-forged is the service's.
func TestUnreadableCreditsInForgedIsInconclusive(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", extra: strings.Replace(webhookYAML, "/credits?", "/credits-nope?", 1)}
	_, rep, out := f.run(t, Options{Only: []string{"W-forged"}})
	wantInconclusive(t, rep, out, map[string]string{"W-forged": "ledger.credits"})
}

// A service that closes the connection without answering leaves A7 no
// reply to lose.
func TestA7WithoutAReplyIsInconclusive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			w.WriteHeader(200)
			return
		}
		hj, _ := w.(http.Hijacker)
		if c, _, err := hj.Hijack(); err == nil {
			_ = c.Close()
		}
	}))
	defer srv.Close()
	_, rep, out := runText(t, servedBy(t, fixture{flaw: "none"}, srv.URL, "1s"), Options{Only: []string{"A7"}})
	wantInconclusive(t, rep, out, map[string]string{"A7": "the service sent no reply to drop"})
}
