package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The probe reads a credits endpoint in whatever plausible shape it
// answers and writes the list it found (issue 50: {"entries": [...]}).
func TestCreditsReadFindsTheListAndRendersIt(t *testing.T) {
	for _, tc := range []struct{ body, list string }{
		{`[{"amount": 1000}]`, ""},
		{`{"data": [{"amount": 1000}]}`, "data"},
		{`{"count": 1, "entries": [{"amount": 1000}]}`, "entries"},
		{`{"page": {"items": [{"amount": 1000}]}}`, "page.items"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(tc.body)) }))
		credits, list, err := readCredits(context.Background(), srv.URL)
		srv.Close()
		if err != nil || list != tc.list || len(credits) != 1 || credits[0] != 1000 {
			t.Errorf("%s: credits %v list %q err %v, want [1000] at %q", tc.body, credits, list, err, tc.list)
			continue
		}
		out := renderWebhook(&Options{URL: "http://127.0.0.1:${PORT}", Webhook: "/hook", Credits: "/credits"}, &hookSeen{credits: credits, list: list, amount: 1000})
		if has := strings.Contains(out, "    list: "+tc.list+"\n"); has != (tc.list != "") {
			t.Errorf("%s: rendered list %q: %v\n%s", tc.body, tc.list, has, out)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"count": 1}`)) }))
	defer srv.Close()
	if _, _, err := readCredits(context.Background(), srv.URL); err == nil || !strings.Contains(err.Error(), "ledger.credits.list") ||
		!strings.Contains(err.Error(), "count (number)") {
		t.Errorf("error %v: want it to name ledger.credits.list and the members", err)
	}
}
