package checks

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// A refund the PSP carried out while the client was told it failed is
// failed-but-refunded: the name says what moved (issue 50: it was named
// failed-but-charged, though that request charged nothing).
func TestRefundToldFailedIsFailedButRefunded(t *testing.T) {
	text := strings.Join([]string{
		`target: {base_urls: ["http://127.0.0.1:1"]}`,
		`create: {path: /payments, body: '{"order_id": "{{order_id}}", "amount": {{amount}}}'}`,
		`callers: [{name: u1}]`,
		`outcomes: {payment_id: id, rules: [{status: [201], outcome: succeeded}]}`,
		`effects: {http_counter: {url: "http://127.0.0.1:1/c", field: n}}`}, "\n")
	cfg, err := config.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e := &scenario.Env{Cfg: cfg, D: driver.New(cfg, []string{"http://127.0.0.1:1"}), Seed: 5}
	c := &scenario.Check{ID: "chaos", Level: scenario.Safety, Run: func(ctx context.Context, e *scenario.Env, t *scenario.T) {
		rc := &refundCase{in: e.NewIntent(0), name: "payments:u1:k", pay: "pay_1", key: "k:refund",
			atts: []*driver.Attempt{{Seq: 1, Status: 402, Outcome: history.OutcomeFailed}}}
		toldNotRefunded(t, rc, []history.Op{{Process: "psp", Op: history.OpRefund, Input: history.Input{ChargeID: "ch_1", PSPKey: "k:refund"}}})
	}}
	r := scenario.RunCheck(context.Background(), e, c)
	if len(r.Findings) != 1 || r.Findings[0].Kind != checker.KindFailedButRefunded {
		t.Fatalf("findings %+v, want one failed-but-refunded", r.Findings)
	}
}
