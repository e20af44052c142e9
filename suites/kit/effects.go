package kit

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
)

// Effects reads ground truth recorded outside the recorder, as history ops.
type Effects interface {
	Effects(ctx context.Context) ([]history.Op, error)
}

// EffectsFunc adapts a function to Effects.
type EffectsFunc func(ctx context.Context) ([]history.Op, error)

// Effects calls f.
func (f EffectsFunc) Effects(ctx context.Context) ([]history.Op, error) { return f(ctx) }

// Charge is one charge your service made, as its own records show it.
type Charge struct {
	// PaymentID is the id your service answered the client with: it ties
	// the charge to the client's intent.
	PaymentID string
	// Key is the key the charge was made under at the PSP and ChargeID the
	// PSP's id of it (both required: the checker leaves a charge without
	// them out, and says so).
	Key, ChargeID string
	Amount        int64
	At            time.Time // when it happened; zero: now
}

// Charges turns your service's charges into the history's charge ops.
func Charges(process string, cs []Charge) []history.Op {
	out := make([]history.Op, 0, len(cs))
	for _, c := range cs {
		at := history.Now()
		if !c.At.IsZero() {
			at = c.At.UnixNano()
		}
		out = append(out, history.Op{Process: process, Op: history.OpCharge, Call: at, Return: history.Int64(at),
			PaymentID: c.PaymentID, Input: history.Input{PSPKey: c.Key, Amount: history.Int64(c.Amount)}, Output: &history.Output{ChargeID: c.ChargeID}})
	}
	return out
}

// LedgerCredits is the reference ledger's ground truth of what will be
// credited: one credit per outbox row, tied to the payment's intent, so the
// checker's quiescence rule sees a charged payment that never got its row.
func LedgerCredits(led *ledger.Ledger) Effects {
	return EffectsFunc(func(ctx context.Context) ([]history.Op, error) {
		ps, err := led.All(ctx)
		if err != nil {
			return nil, err
		}
		intents := map[string]string{}
		for _, p := range ps {
			intents[p.ID] = api.Scope(p.Caller, p.Key, true)
		}
		rows, err := led.Outbox(ctx)
		if err != nil {
			return nil, err
		}
		var out []history.Op
		for _, r := range rows {
			now := history.Now()
			out = append(out, history.Op{Process: "ledger", Op: history.OpCredit, Call: now, Return: history.Int64(now),
				PaymentID: r.PaymentID, Intent: intents[r.PaymentID],
				Input:  history.Input{Merchant: r.Merchant, Amount: history.Int64(r.Amount), EventID: r.EventID},
				Output: &history.Output{}})
		}
		return out, nil
	})
}

// WorkerCredits is the reference worker's credits table: every credit a
// worker applied, with its own call and return times.
func WorkerCredits(pool *pgxpool.Pool) Effects {
	return EffectsFunc(func(ctx context.Context) ([]history.Op, error) {
		rows, err := pool.Query(ctx, `SELECT event_id, payment_id, merchant, amount, worker, call_ns, return_ns FROM credits ORDER BY id`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []history.Op
		for rows.Next() {
			var op history.Op
			var amount, ret int64
			if err := rows.Scan(&op.Input.EventID, &op.PaymentID, &op.Input.Merchant, &amount, &op.Process, &op.Call, &ret); err != nil {
				return nil, err
			}
			op.Op, op.Input.Amount, op.Return = history.OpCredit, &amount, &ret
			out = append(out, op)
		}
		return out, rows.Err()
	})
}
