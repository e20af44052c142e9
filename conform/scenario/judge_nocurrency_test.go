package scenario

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// chargingService charges the order its amount in usd at the PSP while it
// handles the first create, then answers every create with status.
func chargingService(t *testing.T, p *refundedPSP, status int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if len(p.charges) == 0 {
			var body struct {
				OrderID string `json:"order_id"`
				Amount  int64  `json:"amount"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			now := history.Now()
			c := charge("pk-1", body.Amount, map[string]string{"order_id": body.OrderID}, "ch_1")
			c.Call, c.Return, c.Input.Currency = now, history.Int64(now), "usd"
			p.charges = append(p.charges, c)
		}
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"id": "pay_1"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// noCurrencyEnv is a target whose create template sends no {{currency}}:
// the history records its creates without one.
func noCurrencyEnv(t *testing.T, p *refundedPSP, url string) *Env {
	t.Helper()
	text := strings.Join([]string{
		`target: {base_urls: ["` + url + `"]}`,
		`create: {path: /payments, body: '{"order_id": "{{order_id}}", "amount": {{amount}}}'}`,
		`callers: [{name: u1}]`,
		`outcomes: {payment_id: id, rules: [{status: [201], outcome: succeeded}, {status: [402], outcome: failed}]}`,
		`effects: {http_counter: {url: "http://127.0.0.1:1/c", field: n}}`, // never read: Effects is given
		`converge_within: 300ms`, `settle: 10ms`, `timeout: 2s`}, "\n")
	cfg, err := config.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Cfg: cfg, D: driver.New(cfg, []string{url}), Effects: refundedEffects{p}, PSP: p, Seed: 5}
}

// TestJudgeCreatesWithoutCurrency: a create template without {{currency}}
// sends creates that carry no currency, and the history records them so.
// The checker must still see them: told failed while the PSP charged (in
// usd) is inconsistent-answer, which only the client's ops can show, as
// well as failed-but-charged; told succeeded with the charge of its amount
// is a pass (no currency is not another currency). The history kept holds
// the create ops, without a currency.
func TestJudgeCreatesWithoutCurrency(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		kinds  []string
	}{
		{"told failed", http.StatusPaymentRequired, []string{checker.KindFailedButCharged, checker.KindInconsistentAnswer}},
		{"told succeeded", http.StatusCreated, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &refundedPSP{}
			srv := chargingService(t, p, c.status)
			e := noCurrencyEnv(t, p, srv.URL)
			defer e.Close()
			intent := ""
			check := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
				in := e.NewIntent(0)
				intent = e.D.Intent(in.Caller, in.Key)
				t.Converge(ctx, "create", in, nil)
				t.Judge(ctx, nil, in)
			}}
			r := RunCheck(context.Background(), e, check)
			var kinds []string
			for _, f := range r.Findings {
				kinds = append(kinds, f.Kind)
			}
			slices.Sort(kinds)
			creates := 0
			for _, op := range r.History {
				if op.Op == history.OpCreate {
					creates++
					if op.Intent != intent || op.Input.Currency != "" {
						t.Errorf("create op %+v: want intent %q and no currency", op, intent)
					}
				}
			}
			if errs := e.D.Recorder.Errors(); len(errs) > 0 {
				t.Errorf("the recorder refused ops: %v", errs)
			}
			if !slices.Equal(kinds, c.kinds) || creates == 0 {
				for _, f := range r.Findings {
					t.Logf("%s: %s", f.Kind, f.Message)
				}
				t.Fatalf("verdict %s (%s), findings %v, %d creates in the history; want %v and the creates",
					r.Verdict, r.Why, kinds, creates, c.kinds)
			}
			if len(c.kinds) == 0 && r.Verdict != Pass {
				t.Fatalf("verdict %s (%s), want pass", r.Verdict, r.Why)
			}
			again := kindsOf(checker.Check(r.History, checker.CheckOptions{}).Violations)
			if !slices.Equal(again, c.kinds) {
				t.Fatalf("the checker over the history kept says %v, the judge %v", again, c.kinds)
			}
		})
	}
}
