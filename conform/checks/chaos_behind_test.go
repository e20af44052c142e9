package checks

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestEmptySinkIsInconclusive: ledger credits with no sink row at all mean
// the stream job wrote nothing, which the sink rule alone would pass.
func TestEmptySinkIsInconclusive(t *testing.T) {
	credit := history.Op{Process: "ledger-pay_1", Op: history.OpCredit, Call: 10, Return: history.Int64(10), PaymentID: "pay_1",
		Input: history.Input{Merchant: "m1", Amount: history.Int64(3000), EventID: "pay_1:SUCCEEDED", Day: "2026-12-01"}}
	sinkRow := history.Op{Process: "sink", Op: history.OpSink, Call: 20, Return: history.Int64(20),
		Input: history.Input{Merchant: "m1", Day: "2026-12-01"}, Output: &history.Output{Total: history.Int64(3000), Tag: history.Int64(1)}}
	for _, c := range []struct {
		name  string
		sink  history.History
		incon bool
	}{{"no sink row", history.History{credit}, true}, {"a sink row", history.History{credit, sinkRow}, false}} {
		t.Run(c.name, func(t *testing.T) {
			e := &scenario.Env{Behind: func(context.Context) (history.History, history.History, error) {
				return history.History{credit}, c.sink, nil
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
