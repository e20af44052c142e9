package regions

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
)

// db is a pool on the world's schema of Region r, closed with the world.
func (w *world) db(ctx context.Context, r *regionStack) *pgxpool.Pool {
	if r.pool == nil {
		r.pool = w.pool(ctx, r)
		w.down = append(w.down, func(context.Context) { r.pool.Close() })
	}
	return r.pool
}

// payment reads payment id in Region r (nil when r has no such row).
func (w *world) payment(ctx context.Context, r *regionStack, id string) *ledger.Payment {
	GinkgoHelper()
	p, err := (&ledger.Ledger{Pool: w.db(ctx, r)}).Get(ctx, id)
	Expect(err).NotTo(HaveOccurred())
	return p
}

// state is payment id's state in Region r ("" when absent).
func (w *world) state(ctx context.Context, r *regionStack, id string) string {
	if p := w.payment(ctx, r, id); p != nil {
		return p.State
	}
	return ""
}

// record reads the key record of u1's key in Region r's Valkey, trusting
// presence (a replica's view, not a read path's).
func (w *world) record(ctx context.Context, r *regionStack, key string) *keystore.Record {
	GinkgoHelper()
	c, err := keystore.Dial(r.svc.Valkey.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	rec, err := (&keystore.Store{C: c, Prefix: w.name + ":", TrustPresence: true}).Get(ctx, api.Scope("u1", key, true), 0)
	Expect(err).NotTo(HaveOccurred())
	return rec
}

// credits are Region r's credits table as history ops (the worker's ground
// truth), each naming the Region.
func (w *world) credits(ctx context.Context, r *regionStack) []history.Op {
	GinkgoHelper()
	rows, err := w.db(ctx, r).Query(ctx, `SELECT event_id, payment_id, merchant, amount, worker, call_ns, return_ns FROM credits ORDER BY id`)
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	var out []history.Op
	for rows.Next() {
		var op history.Op
		var amount, ret int64
		Expect(rows.Scan(&op.Input.EventID, &op.PaymentID, &op.Input.Merchant, &amount, &op.Process, &op.Call, &ret)).To(Succeed())
		op.Op, op.Input.Amount, op.Return, op.Output, op.Region = history.OpCredit, &amount, &ret, &history.Output{}, r.name
		out = append(out, op)
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return out
}

func (w *world) countCredits(ctx context.Context, r *regionStack) int {
	var n int
	Expect(w.db(ctx, r).QueryRow(ctx, `SELECT count(*) FROM credits`).Scan(&n)).To(Succeed())
	return n
}

// balance reads m1 in Region r; recorded says whether the read goes in the
// history (only where one Region's ledger is the truth).
func (w *world) balance(ctx context.Context, r *regionStack, recorded bool) int64 {
	GinkgoHelper()
	var p *history.Pending
	if recorded {
		p = w.rec.Begin("reader-"+r.name, history.OpBalance, "", history.Input{Merchant: "m1"})
	}
	var b int64
	Expect(w.db(ctx, r).QueryRow(ctx, `SELECT balance FROM merchant_balances WHERE merchant = 'm1'`).Scan(&b)).To(Succeed())
	if p != nil {
		p.SetRegion(r.name)
		Expect(p.End(history.Output{Balance: history.Int64(b)})).To(Succeed())
	}
	return b
}

// logCopies counts the records in a single-partition topic, and how far
// group has committed in it.
func (w *world) logCopies(ctx context.Context, r *regionStack) (end, committed int64) {
	GinkgoHelper()
	ends, err := srv.adm.ListEndOffsets(ctx, r.topic)
	Expect(err).NotTo(HaveOccurred())
	e, ok := ends.Lookup(r.topic, 0)
	Expect(ok).To(BeTrue())
	offs, err := srv.adm.FetchOffsets(ctx, r.group)
	Expect(err).NotTo(HaveOccurred())
	committed = -1
	if o, ok := offs.Lookup(r.topic, 0); ok {
		committed = o.At
	}
	return e.Offset, committed
}

// check runs the checker over the phones' answers, the PSP's charges and the
// credits of the given Regions, with m1's opening balance.
func (w *world) check(ctx context.Context, from ...*regionStack) *checker.Result {
	GinkgoHelper()
	h := w.History(ctx)
	for _, r := range from {
		h = append(h, w.credits(ctx, r)...)
	}
	return checker.Check(h, checker.CheckOptions{InitialBalances: map[string]int64{"m1": 12000}})
}

// regionsOf lists, in order, which Region answered each of the phones' creates.
func (w *world) regionsOf(process string) []string {
	var out []string
	h := w.rec.History()
	sort.Slice(h, func(i, j int) bool { return h[i].Call < h[j].Call })
	for _, op := range h {
		if op.Process == process && op.Op == history.OpCreate {
			out = append(out, fmt.Sprintf("%s:%s", op.Region, outcome(op)))
		}
	}
	return out
}

func outcome(op history.Op) string {
	if op.Output == nil {
		return "?"
	}
	return op.Output.Outcome
}
