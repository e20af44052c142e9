package delivery

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// world is one spec's private slice of the servers: its own database, topic,
// consumer group and push provider, and the tier processes it started.
type world struct {
	*kit.World
	name    string
	dsn     string
	pool    *pgxpool.Pool
	led     *ledger.Ledger
	topic   string
	group   string
	pushURL string
	phone   *push.Client
	// rec holds the harness's own ops (balance reads, the seeded charges).
	rec *history.Recorder
	// extra is ground truth recorded elsewhere (the fake PSP's charges).
	extra history.History
}

// proc is one tier process and its admin endpoint.
type proc = kit.Proc

// newWorld builds a spec's world and registers its teardown.
func newWorld(ctx context.Context) *world {
	kw := srv.NewWorld("delivery", "w")
	w := &world{World: kw, name: kw.Name, rec: history.NewRecorder(),
		topic: "payments-" + strings.TrimPrefix(kw.Name, "w"), group: "workers-" + strings.TrimPrefix(kw.Name, "w")}
	w.dsn, w.pool = w.Database(ctx)
	w.led = &ledger.Ledger{Pool: w.pool}
	Expect(ledger.Migrate(ctx, w.pool)).To(Succeed())
	Expect(worker.Migrate(ctx, w.pool)).To(Succeed())
	_, err := w.pool.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) VALUES ('m1', 12000)`)
	Expect(err).NotTo(HaveOccurred())
	w.Topic(ctx, w.topic)

	p := w.start(ctx, "push", push.TierName, "")
	w.pushURL = p.Addrs["push"]
	w.phone = push.NewClient(w.pushURL)
	GinkgoWriter.Printf("world %s: db %s topic %s group %s logs %s\n", w.name, w.name, w.topic, w.group, w.Dir)
	return w
}

// start runs tier tierName as process name; arm ("point=action;...") arms
// failpoints before the process's first instruction.
func (w *world) start(ctx context.Context, name, tierName, arm string, args ...string) *proc {
	GinkgoHelper()
	return w.Start(ctx, name, tierName, arm, args...)
}

// relayOpts shape a relay process.
type relayOpts struct {
	arm             string
	transactionalID string
	brokers         string // default: the direct listener
	mutants         string // the relay's switches
}

func (w *world) startRelay(ctx context.Context, name string, o relayOpts) *proc {
	brokers := o.brokers
	if brokers == "" {
		brokers = srv.Brokers
	}
	args := []string{"-postgres", w.dsn, "-brokers", brokers, "-topic", w.topic}
	if o.transactionalID != "" {
		args = append(args, "-transactional-id", o.transactionalID)
	}
	if o.mutants != "" {
		args = append(args, "-mutants", o.mutants)
	}
	return w.start(ctx, name, relay.TierName, o.arm, args...)
}

// workerOpts shape a worker process.
type workerOpts struct {
	mutant string // the worker's switches, comma separated
	arm    string
	valkey string
	extra  []string
}

func (w *world) startWorker(ctx context.Context, name string, o workerOpts) *proc {
	args := []string{"-name", name, "-postgres", w.dsn, "-brokers", srv.Brokers, "-topic", w.topic,
		"-group", w.group, "-push", w.pushURL}
	if o.mutant != "" {
		args = append(args, "-mutants", o.mutant)
	}
	if o.valkey != "" {
		args = append(args, "-valkey", o.valkey)
	}
	return w.start(ctx, name, worker.TierName, o.arm, append(args, o.extra...)...)
}

// expectCrashed waits for p to die at a crash failpoint (kit.ExpectCrashed).
func expectCrashed(p *proc) {
	GinkgoHelper()
	kit.ExpectCrashed(p.Process)
}

// seedPayment makes payment id SUCCEEDED through the ledger's own compare-and-
// set, which writes the outbox row in the same transaction. The PSP charge
// behind it is recorded as ground truth, so the lost-effect invariant (every
// charged payment credited, and notified) covers the payment.
func (w *world) seedPayment(ctx context.Context, id, caller, key, merchant string, amount int64) {
	call := history.Now()
	_, err := w.led.InsertPending(ctx, ledger.Payment{ID: id, Caller: caller, Key: key, Fingerprint: "fp-" + id,
		Amount: amount, Currency: "USD", Merchant: merchant, Method: "pm_1", OrderID: "42", PSPKey: id + ":charge"})
	Expect(err).NotTo(HaveOccurred())
	moved, err := w.led.Apply(ctx, ledger.Move{ID: id, From: []string{ledger.Pending}, To: ledger.Succeeded, Charge: "ch_" + id}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(moved).To(BeTrue())
	ret := history.Now()
	Expect(w.rec.Record(history.Op{Process: "psp", Op: history.OpCharge, Call: call, Return: &ret, PaymentID: id,
		Input:  history.Input{PSPKey: id + ":charge", Amount: history.Int64(amount)},
		Output: &history.Output{ChargeID: "ch_" + id}})).To(Succeed())
}

// readBalance reads a merchant's balance and records the read.
func (w *world) readBalance(ctx context.Context, merchant string) int64 {
	p := w.rec.Begin("reader", history.OpBalance, "", history.Input{Merchant: merchant})
	var b int64
	Expect(w.pool.QueryRow(ctx, `SELECT balance FROM merchant_balances WHERE merchant = $1`, merchant).Scan(&b)).To(Succeed())
	Expect(p.End(history.Output{Balance: history.Int64(b)})).To(Succeed())
	return b
}
