package scenario

import (
	"net/http"
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

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
			srv := failingService(t, p, c.status, "usd", false)
			e := refundedEnvBody(t, p, srv.URL, `{"order_id": "{{order_id}}", "amount": {{amount}}}`)
			defer e.Close()
			r, intent := judgeOneIntent(e)
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
