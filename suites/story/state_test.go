package story

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// lag is the Region replication lag as a real duration.
func (w *world) lag() time.Duration { return storytime.D(region.Lag) }

// eventually bounds a wait in story seconds, plus room for a loaded machine.
func eventually(story float64) time.Duration { return storytime.D(story) + 20*time.Second }

func (w *world) payment(ctx context.Context, pool *pgxpool.Pool, id string) *ledger.Payment {
	GinkgoHelper()
	p, err := (&ledger.Ledger{Pool: pool}).Get(ctx, id)
	Expect(err).NotTo(HaveOccurred())
	return p
}

// state is payment id's state in a Region's ledger ("" when absent).
func (w *world) state(ctx context.Context, pool *pgxpool.Pool, id string) string {
	if p := w.payment(ctx, pool, id); p != nil {
		return p.State
	}
	return ""
}

// record reads u1's key record in a Region's Valkey, trusting presence (a
// replica's view, not a read path's).
func (w *world) record(ctx context.Context, valkeyAddr, key string) *keystore.Record {
	GinkgoHelper()
	c, err := keystore.Dial(valkeyAddr)
	Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	rec, err := (&keystore.Store{C: c, Prefix: w.name + ":", TrustPresence: true}).Get(ctx, api.Scope("u1", key, true), 0)
	Expect(err).NotTo(HaveOccurred())
	return rec
}

// credits are R2's credits table as history ops (the worker's ground truth).
func (w *world) credits(ctx context.Context) []history.Op {
	GinkgoHelper()
	rows, err := w.pool2.Query(ctx, `SELECT event_id, payment_id, merchant, amount, worker, call_ns, return_ns FROM credits ORDER BY id`)
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	var out []history.Op
	for rows.Next() {
		var op history.Op
		var amount, ret int64
		Expect(rows.Scan(&op.Input.EventID, &op.PaymentID, &op.Input.Merchant, &amount, &op.Process, &op.Call, &ret)).To(Succeed())
		op.Op, op.Input.Amount, op.Return, op.Output, op.Region = history.OpCredit, &amount, &ret, &history.Output{}, "R2"
		out = append(out, op)
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return out
}

func count(ctx context.Context, pool *pgxpool.Pool, sql string) int {
	GinkgoHelper()
	var n int
	Expect(pool.QueryRow(ctx, sql).Scan(&n)).To(Succeed())
	return n
}

// balance reads m1 in R2 and records the read.
func (w *world) balance(ctx context.Context) int64 {
	GinkgoHelper()
	p := w.rec.Begin("reader-R2", history.OpBalance, "", history.Input{Merchant: "m1"})
	var b int64
	Expect(w.pool2.QueryRow(ctx, `SELECT balance FROM merchant_balances WHERE merchant = 'm1'`).Scan(&b)).To(Succeed())
	p.SetRegion("R2")
	Expect(p.End(history.Output{Balance: history.Int64(b)})).To(Succeed())
	return b
}

// logCopies counts the records on the payment-event topic and how far the
// workers' group has committed.
func (w *world) logCopies(ctx context.Context) (end, committed int64) {
	GinkgoHelper()
	ends, err := srv.adm.ListEndOffsets(ctx, w.topic)
	Expect(err).NotTo(HaveOccurred())
	e, ok := ends.Lookup(w.topic, 0)
	Expect(ok).To(BeTrue())
	offs, err := srv.adm.FetchOffsets(ctx, w.group)
	Expect(err).NotTo(HaveOccurred())
	committed = -1
	if o, ok := offs.Lookup(w.topic, 0); ok {
		committed = o.At
	}
	return e.Offset, committed
}

// removeMember takes a dead static member out of the group at once, as an
// orchestrator that saw the process die would.
func (w *world) removeMember(ctx context.Context, instanceID string) {
	GinkgoHelper()
	resp, err := srv.adm.LeaveGroup(ctx, kadm.LeaveGroup(w.group).InstanceIDs(instanceID))
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Error()).NotTo(HaveOccurred())
}

// expectCrashed waits for p to die at a crash failpoint: the exit status
// proves the fault fired.
func expectCrashed(p *faults.Process) {
	GinkgoHelper()
	err := p.Wait(eventually(30))
	var ee *exec.ExitError
	Expect(errors.As(err, &ee)).To(BeTrue(), "%s did not exit at its failpoint: %v (log %s)", p.Name(), err, p.LogPath())
	Expect(ee.ExitCode()).To(Equal(failpoint.CrashCode), "%s exited with %d, not the failpoint crash code", p.Name(), ee.ExitCode())
}

// history is everything the story recorded: the phones' answers, the PSP's
// charges, the balance and sink reads, R2's credits and the push
// provider's notifications.
func (w *world) history(ctx context.Context) history.History {
	GinkgoHelper()
	Expect(w.rec.Errors()).To(BeEmpty(), "recorder refused operations")
	Expect(w.psp.RecorderErr()).NotTo(HaveOccurred())
	h := append(w.rec.History(), w.credits(ctx)...)
	notes, err := w.screen.History(ctx)
	Expect(err).NotTo(HaveOccurred())
	return append(h, notes...)
}

func (w *world) check(ctx context.Context) *checker.Result {
	GinkgoHelper()
	res := checker.Check(w.history(ctx), checker.CheckOptions{InitialBalances: map[string]int64{"m1": 12000}, Timeout: 30 * time.Second})
	for _, v := range res.Violations {
		GinkgoWriter.Printf("violation %s %s%s: %s\n", v.Kind, v.Intent, v.Merchant, v.Message)
	}
	Expect(res.Invalid).To(BeEmpty())
	Expect(res.Unknown).To(BeEmpty(), "checker could not decide")
	return res
}

func kinds(res *checker.Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, v.Kind)
	}
	return out
}
