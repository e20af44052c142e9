package delivery

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/tier"
	"github.com/idemcheck/idemcheck/targets/worker"
)

var worldSeq atomic.Int64

// world is one spec's private slice of the servers: its own database, topic,
// consumer group and push provider, and the tier processes it started.
type world struct {
	name    string
	dsn     string
	pool    *pgxpool.Pool
	led     *ledger.Ledger
	topic   string
	group   string
	logDir  string
	pushURL string
	phone   *push.Client
	// rec holds the harness's own ops (balance reads, the seeded charges).
	rec *checker.Recorder
	// extra is ground truth recorded elsewhere (the fake PSP's charges).
	extra checker.History
	procs []*proc
}

// proc is one tier process and its admin endpoint.
type proc struct {
	*faults.Process
	admin string
	addrs map[string]string
}

// newWorld builds a spec's world and registers its teardown.
func newWorld(ctx context.Context) *world {
	n := worldSeq.Add(1)
	w := &world{
		name:  fmt.Sprintf("w%d_%d", os.Getpid(), n),
		topic: fmt.Sprintf("payments-%d-%d", os.Getpid(), n),
		group: fmt.Sprintf("workers-%d-%d", os.Getpid(), n),
		rec:   checker.NewRecorder(),
	}
	var err error
	w.logDir, err = os.MkdirTemp("", "idemcheck-delivery-"+w.name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(time.Minute))

	_, err = srv.adminPool.Exec(ctx, "CREATE DATABASE "+w.name)
	Expect(err).NotTo(HaveOccurred())
	w.dsn = withDatabase(srv.stack.Postgres.Endpoint(), w.name)
	w.pool, err = pgxpool.New(ctx, w.dsn)
	Expect(err).NotTo(HaveOccurred())
	w.led = &ledger.Ledger{Pool: w.pool}
	Expect(ledger.Migrate(ctx, w.pool)).To(Succeed())
	Expect(worker.Migrate(ctx, w.pool)).To(Succeed())
	_, err = w.pool.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) VALUES ('m1', 12000)`)
	Expect(err).NotTo(HaveOccurred())

	resp, err := srv.adm.CreateTopic(ctx, 1, 1, nil, w.topic)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Err).NotTo(HaveOccurred())

	p := w.start(ctx, "push", push.TierName, "")
	w.pushURL = p.addrs["push"]
	w.phone = push.NewClient(w.pushURL)
	GinkgoWriter.Printf("world %s: db %s topic %s group %s logs %s\n", w.name, w.name, w.topic, w.group, w.logDir)
	return w
}

func withDatabase(dsn, db string) string {
	_, err := url.Parse(dsn)
	Expect(err).NotTo(HaveOccurred())
	return withDatabaseURL(dsn, db)
}

// withDatabaseURL points a postgres:// DSN at another database of the same
// cluster (the DSN is the services package's own, so it parses).
func withDatabaseURL(dsn, db string) string {
	u, _ := url.Parse(dsn)
	u.Path = "/" + db
	return u.String()
}

func (w *world) teardown(ctx SpecContext) {
	for _, p := range w.procs {
		_ = p.Stop(5 * time.Second)
	}
	if CurrentSpecReport().Failed() {
		w.dumpLogs()
	}
	if w.pool != nil {
		w.pool.Close()
	}
	_, _ = srv.adminPool.Exec(ctx, "DROP DATABASE IF EXISTS "+w.name+" WITH (FORCE)")
	_, _ = srv.adm.DeleteTopic(ctx, w.topic)
	_ = os.RemoveAll(w.logDir)
}

// dumpLogs copies every tier log into the report of a failed spec, since the
// log directory is removed with the world.
func (w *world) dumpLogs() {
	ents, _ := os.ReadDir(w.logDir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(w.logDir, e.Name()))
		if len(b) > 16<<10 {
			b = b[len(b)-16<<10:]
		}
		AddReportEntry("log "+e.Name(), string(b))
	}
}

// start runs tier tierName as process name; arm ("point=action;...") arms
// failpoints before the process's first instruction that meets one, so a
// restarted tier cannot race past a point before the harness arms it.
func (w *world) start(ctx context.Context, name, tierName, arm string, args ...string) *proc {
	addrFile := filepath.Join(w.logDir, name+".addr")
	_ = os.Remove(addrFile)
	if arm != "" {
		args = append(args, "-failpoints", arm)
	}
	cmd, err := tier.Command(tierName, append(args, "-addr-file", addrFile)...)
	Expect(err).NotTo(HaveOccurred())
	fp, err := faults.StartProcess(name, cmd, w.logDir)
	Expect(err).NotTo(HaveOccurred())
	p := &proc{Process: fp}
	w.procs = append(w.procs, p)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p.addrs, err = tier.ReadAddrs(rctx, addrFile)
	Expect(err).NotTo(HaveOccurred(), "tier %s did not publish its addresses (log %s)", name, fp.LogPath())
	p.admin = p.addrs["admin"]
	return p
}

// relayOpts shape a relay process.
type relayOpts struct {
	arm             string
	transactionalID string
	brokers         string // default: the direct listener
}

func (w *world) startRelay(ctx context.Context, name string, o relayOpts) *proc {
	brokers := o.brokers
	if brokers == "" {
		brokers = srv.brokers
	}
	args := []string{"-postgres", w.dsn, "-brokers", brokers, "-topic", w.topic}
	if o.transactionalID != "" {
		args = append(args, "-transactional-id", o.transactionalID)
	}
	return w.start(ctx, name, relay.TierName, o.arm, args...)
}

// workerOpts shape a worker process.
type workerOpts struct {
	mutant string
	arm    string
	valkey string
	extra  []string
}

func (w *world) startWorker(ctx context.Context, name string, o workerOpts) *proc {
	args := []string{"-name", name, "-postgres", w.dsn, "-brokers", srv.brokers, "-topic", w.topic,
		"-group", w.group, "-push", w.pushURL}
	if o.mutant != "" {
		args = append(args, "-mutant", o.mutant)
	}
	if o.valkey != "" {
		args = append(args, "-valkey", o.valkey)
	}
	return w.start(ctx, name, worker.TierName, o.arm, append(args, o.extra...)...)
}

// expectCrashed waits for p to die at a crash failpoint: the exit status
// proves the fault fired, so a spec cannot pass when the point was missed.
func expectCrashed(p *proc) {
	err := p.Wait(60 * time.Second)
	var ee *exec.ExitError
	Expect(errors.As(err, &ee)).To(BeTrue(), "%s did not exit at its failpoint: %v (log %s)", p.Name(), err, p.LogPath())
	Expect(ee.ExitCode()).To(Equal(failpoint.CrashCode), "%s exited with %d, not the failpoint crash code", p.Name(), ee.ExitCode())
}

// seedPayment makes payment id SUCCEEDED through the ledger's own compare-and-
// set, which writes the outbox row in the same transaction. The PSP charge
// behind it is recorded as ground truth, so the lost-effect invariant (every
// charged payment credited, and notified) covers the payment.
func (w *world) seedPayment(ctx context.Context, id, caller, key, merchant string, amount int64) {
	call := checker.Now()
	_, err := w.led.InsertPending(ctx, ledger.Payment{ID: id, Caller: caller, Key: key, Fingerprint: "fp-" + id,
		Amount: amount, Currency: "USD", Merchant: merchant, Method: "pm_1", OrderID: "42", PSPKey: id + ":charge"})
	Expect(err).NotTo(HaveOccurred())
	moved, err := w.led.Apply(ctx, ledger.Move{ID: id, From: []string{ledger.Pending}, To: ledger.Succeeded, Charge: "ch_" + id}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(moved).To(BeTrue())
	ret := checker.Now()
	Expect(w.rec.Record(checker.Op{Process: "psp", Op: checker.OpCharge, Call: call, Return: &ret, PaymentID: id,
		Input:  checker.Input{PSPKey: id + ":charge", Amount: checker.Int64(amount)},
		Output: &checker.Output{ChargeID: "ch_" + id}})).To(Succeed())
}

// readBalance reads a merchant's balance and records the read.
func (w *world) readBalance(ctx context.Context, merchant string) int64 {
	p := w.rec.Begin("reader", checker.OpBalance, "", checker.Input{Merchant: merchant})
	var b int64
	Expect(w.pool.QueryRow(ctx, `SELECT balance FROM merchant_balances WHERE merchant = $1`, merchant).Scan(&b)).To(Succeed())
	Expect(p.End(checker.Output{Balance: checker.Int64(b)})).To(Succeed())
	return b
}
