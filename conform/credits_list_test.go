package conform

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// A credits read whose answer is not where the config says names
// ledger.credits.list, the members it saw and the list to set (issue 50:
// "want a JSON list: json: cannot unmarshal object" named neither).
func TestCreditsReadNamesTheListField(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"count": 1, "entries": [{"amount": 1000}]}`))
	}))
	defer srv.Close()
	ref := scenario.PaymentRef{OrderID: "o1", PaymentID: "p1", PSPPaymentID: "pi_1"}
	for _, tc := range []struct{ list, want string }{
		{"", `ledger.credits.list: the answer of ` + srv.URL + `/c?pi=pi_1 is not a JSON list (the answer's members: count (number), entries (list of 1)): set list: entries`},
		{"data", `ledger.credits.list: no member "data" in the answer of ` + srv.URL + `/c?pi=pi_1 (its members: count (number), entries (list of 1)): set list: entries`},
		{"count", `ledger.credits.list: member "count" of ` + srv.URL + `/c?pi=pi_1 is not a JSON list`},
	} {
		r := creditReader{c: &config.Credits{URL: srv.URL + "/c?pi={{psp_payment_id}}", List: tc.list, AmountField: "amount"}}
		_, err := r.Credits(context.Background(), ref)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("list %q: error %v, want it to contain %q", tc.list, err, tc.want)
		}
	}
	r := creditReader{c: &config.Credits{URL: srv.URL + "/c?pi={{psp_payment_id}}", List: "entries", AmountField: "amount"}}
	if got, err := r.Credits(context.Background(), ref); err != nil || len(got) != 1 || got[0] != 1000 {
		t.Errorf("list entries: %v %v, want [1000]", got, err)
	}
}
