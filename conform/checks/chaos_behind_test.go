package checks

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestEmptySinkIsInconclusive: ledger credits with no sink row at all mean
// the stream job wrote nothing, which the sink rule alone would pass.
func TestEmptySinkIsInconclusive(t *testing.T) {
	credit := checker.Op{Process: "ledger-pay_1", Op: checker.OpCredit, Call: 10, Return: checker.Int64(10), PaymentID: "pay_1",
		Input: checker.Input{Merchant: "m1", Amount: checker.Int64(3000), EventID: "pay_1:SUCCEEDED", Day: "2026-12-01"}}
	sinkRow := checker.Op{Process: "sink", Op: checker.OpSink, Call: 20, Return: checker.Int64(20),
		Input: checker.Input{Merchant: "m1", Day: "2026-12-01"}, Output: &checker.Output{Total: checker.Int64(3000), Tag: checker.Int64(1)}}
	for _, c := range []struct {
		name  string
		sink  checker.History
		incon bool
	}{{"no sink row", checker.History{credit}, true}, {"a sink row", checker.History{credit, sinkRow}, false}} {
		t.Run(c.name, func(t *testing.T) {
			e := &scenario.Env{Behind: func(context.Context) (checker.History, checker.History, error) {
				return checker.History{credit}, c.sink, nil
			}}
			tt := &scenario.T{Env: e, Intents: map[string]bool{}}
			judgeBehind(context.Background(), e, tt)
			got := strings.Join(tt.Inconc, "; ")
			if strings.Contains(got, "sink held a row") != c.incon {
				t.Errorf("inconclusive = %q, want the empty-sink precondition: %v", got, c.incon)
			}
			if len(tt.Findings) != 0 {
				t.Errorf("findings %v", tt.Findings)
			}
		})
	}
}
