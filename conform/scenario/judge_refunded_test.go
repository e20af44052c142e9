package scenario

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// refundedPSP is the PSP's ground truth as a check sees it: the charge a
// create made while it was handled (Effects), and the refunds of it (PSP),
// each read of the refunds counted.
type refundedPSP struct {
	mu      sync.Mutex
	charges []history.Op
	refunds []history.Op
	reads   int
}

// RefundCount counts the refunds without a read, as fakepsp's PSP does: the
// judge's refund cache reads them once while it stays.
func (p *refundedPSP) RefundCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.refunds)
}

func (p *refundedPSP) URL() string           { return "" }
func (p *refundedPSP) Charges() []history.Op { return nil }
func (p *refundedPSP) Refunds() []history.Op {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads++
	return p.refunds
}

type refundedEffects struct{ p *refundedPSP }

func (r refundedEffects) Charges(context.Context) ([]history.Op, error) {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	return slices.Clone(r.p.charges), nil
}
func (r refundedEffects) Count(context.Context) (int64, error) {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	return int64(len(r.p.charges)), nil
}

// failingService answers every create with status (402: failed) after the
// PSP charged the order its amount (a charge made while the first create was
// handled) and refunded that charge in the given tenths of it, each under
// a PSP key of its own or, keyless, under none.
//
// cur is the charge's currency ("" for none).
func failingService(t *testing.T, p *refundedPSP, status int, cur string, keyless bool, tenths ...int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if len(p.charges) == 0 {
			now := history.Now()
			var body struct {
				OrderID string `json:"order_id"`
				Amount  int64  `json:"amount"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			amount := body.Amount
			c := charge("pk-1", amount, map[string]string{"order_id": body.OrderID}, "ch_1")
			c.Call, c.Return, c.Input.Currency = now, history.Int64(now), cur
			p.charges = append(p.charges, c)
			left := amount
			for i, a := range tenths {
				now := history.Now()
				part := a * amount / 10
				if i == len(tenths)-1 && slices.Max(tenths) > 0 && sum(tenths) == 10 {
					part = left // the last part gives back what is left
				}
				left -= part
				key := "rf-" + string(rune('a'+i))
				if keyless {
					key = ""
				}
				p.refunds = append(p.refunds, history.Op{Process: "psp", Op: history.OpRefund, Call: now, Return: history.Int64(now),
					PaymentID: "pay_1", Input: history.Input{PSPKey: key, Amount: history.Int64(part), ChargeID: "ch_1"},
					Output: &history.Output{RefundID: "re_" + string(rune('a'+i))}})
			}
		}
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"id": "pay_1"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sum(xs []int64) (n int64) {
	for _, x := range xs {
		n += x
	}
	return n
}

func refundedEnv(t *testing.T, p *refundedPSP, url string) *Env {
	return refundedEnvBody(t, p, url, `{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}"}`)
}

// refundedEnvBody is a target of the create template body, its effects
// and PSP p's.
func refundedEnvBody(t *testing.T, p *refundedPSP, url, body string) *Env {
	t.Helper()
	text := strings.Join([]string{
		`target: {base_urls: ["` + url + `"]}`,
		`create: {path: /payments, body: '` + body + `'}`,
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

// judgeOneIntent runs a check that sends one intent, converges it and
// judges it; it returns the result and the intent's name.
func judgeOneIntent(e *Env) (r Result, intent string) {
	check := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		in := e.NewIntent(0)
		intent = e.D.Intent(in.Caller, in.Key)
		t.Converge(ctx, "create", in, nil)
		t.Judge(ctx, nil, in)
	}}
	return RunCheck(context.Background(), e, check), intent
}

// TestJudgeFailedAndRefunded: the one intent of an order is answered failed,
// the PSP charged the order once and refunded some of that charge. A charge
// told failed is inconsistent-answer whatever was refunded (HISTORY.md rule
// 6: "failed means never charged"); it is failed-but-charged only while the
// refunds do not add up to it ("Every charged intent not refunded in full
// whose client was told anything but succeeded at the end is
// failed-but-charged"; "Partial refunds that add up to the charge are
// legal"). The judge reads the PSP's refunds once, and not at all for an
// order told succeeded; the history the report keeps holds the refunds the
// verdict rests on, so the checker run over it alone says the same.
func TestJudgeFailedAndRefunded(t *testing.T) {
	for _, c := range []struct {
		name    string
		status  int
		keyless bool
		tenths  []int64
		reads   int
		kinds   []string
		refunds int // refund ops in the history kept
	}{
		{"told succeeded", http.StatusCreated, false, nil, 0, nil, 0},
		{"told succeeded, refunded in full", http.StatusCreated, false, []int64{10}, 0, nil, 0},
		{"not refunded", http.StatusPaymentRequired, false, nil, 1, []string{checker.KindFailedButCharged, checker.KindInconsistentAnswer}, 0},
		{"refunded in part", http.StatusPaymentRequired, false, []int64{4}, 1, []string{checker.KindFailedButCharged, checker.KindInconsistentAnswer}, 1},
		{"refunded in full", http.StatusPaymentRequired, false, []int64{10}, 1, []string{checker.KindInconsistentAnswer}, 1},
		{"refunded in full in two parts", http.StatusPaymentRequired, false, []int64{4, 6}, 1, []string{checker.KindInconsistentAnswer}, 2},
		// Two refunds without a PSP key are two refunds, not one logged twice.
		{"refunded in full in two parts without keys", http.StatusPaymentRequired, true, []int64{4, 6}, 1, []string{checker.KindInconsistentAnswer}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &refundedPSP{}
			srv := failingService(t, p, c.status, "", c.keyless, c.tenths...)
			e := refundedEnv(t, p, srv.URL)
			defer e.Close()
			r, intent := judgeOneIntent(e)
			var kinds []string
			for _, f := range r.Findings {
				kinds = append(kinds, f.Kind)
				if f.Intent != intent {
					t.Errorf("%s names intent %q, want %q", f.Kind, f.Intent, intent)
				}
				if f.Kind == checker.KindFailedButCharged && slices.Contains(c.kinds, checker.KindFailedButCharged) && !strings.Contains(f.Message, "ch_1") {
					t.Errorf("failed-but-charged does not name the charge: %s", f.Message)
				}
			}
			slices.Sort(kinds)
			refunds, keys := 0, map[string]bool{}
			for _, op := range r.History {
				if op.Op == history.OpRefund {
					refunds++
					keys[op.Input.PSPKey] = true
				}
			}
			if len(keys) != refunds {
				t.Errorf("%d refunds in the history under %d PSP keys: the checker would count them as %d", refunds, len(keys), len(keys))
			}
			if !slices.Equal(kinds, c.kinds) || p.reads != c.reads || refunds != c.refunds {
				for _, f := range r.Findings {
					t.Logf("%s: %s", f.Kind, f.Message)
				}
				t.Fatalf("verdict %s, findings %v, %d reads of the refunds, %d refunds in the history; want %v, %d, %d",
					r.Verdict, kinds, p.reads, refunds, c.kinds, c.reads, c.refunds)
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

func kindsOf(vs []checker.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Kind)
	}
	slices.Sort(out)
	return out
}
