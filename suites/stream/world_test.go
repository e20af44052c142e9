package stream

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// world is one spec's slice of the servers: its own database (ledger, sink,
// checkpoints), publication, replication slot and topic, and the tier
// processes it started.
type world struct {
	*kit.World
	name  string
	dsn   string
	pool  *pgxpool.Pool
	led   *ledger.Ledger
	topic string
	slot  string
}

// proc is one tier process and its admin endpoint.
type proc = kit.Proc

func newWorld(ctx context.Context) *world {
	kw := srv.NewWorld("stream", "s")
	n := strings.TrimPrefix(kw.Name, "s")
	w := &world{World: kw, name: kw.Name, topic: "changes-" + n, slot: slotPrefix + n}
	w.dsn, w.pool = w.Database(ctx)
	w.led = &ledger.Ledger{Pool: w.pool}
	Expect(ledger.Migrate(ctx, w.pool)).To(Succeed())
	Expect(streamjob.Migrate(ctx, w.pool)).To(Succeed())
	w.Topic(ctx, w.topic)
	// The slot pins its database and the server's WAL: it goes first. A
	// stopped connector's walsender on the server can hold the slot a few
	// moments after the process is gone: end it (the slot is the test's own)
	// and drop the slot once it is free.
	w.OnTeardown(func(ctx context.Context) {
		Eventually(func(ctx context.Context) error {
			_, _ = srv.Admin.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, w.slot)
			_, err := srv.Admin.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, w.slot)
			return err
		}).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(100*time.Millisecond).Should(Succeed(), "drop slot %s", w.slot)
	})
	GinkgoWriter.Printf("world %s: db %s topic %s slot %s logs %s\n", w.name, w.name, w.topic, w.slot, w.Dir)
	return w
}

// start runs tier tierName as process name with failpoints armed from its
// first instruction (arm: "point=action;...").
func (w *world) start(ctx context.Context, name, tierName, arm string, args ...string) *proc {
	GinkgoHelper()
	return w.Start(ctx, name, tierName, arm, args...)
}

func (w *world) startConnector(ctx context.Context, name, arm string) *proc {
	return w.start(ctx, name, connector.TierName, arm, "-postgres", w.dsn, "-brokers", srv.Brokers, "-topic", w.topic, "-slot", w.slot)
}

// jobOpts shape a stream job process.
type jobOpts struct {
	version int
	mutant  string
	arm     string
	// every is the checkpoint interval in story seconds; 0 = only when the
	// spec asks, so a restore returns to exactly the checkpoint it names.
	every string
}

// startJobNoWait starts a job that is expected to die before it publishes
// its addresses (a crash failpoint on the restore path).
func (w *world) startJobNoWait(_ context.Context, name string, o jobOpts) *proc {
	GinkgoHelper()
	return w.StartNoWait(name, streamjob.TierName, append(w.jobArgs(o), "-failpoints", o.arm)...)
}

// startJob runs the job; every incarnation shares the job id "job", so a
// restart restores the last checkpoint any of them completed.
func (w *world) startJob(ctx context.Context, name string, o jobOpts) *proc {
	args := w.jobArgs(o)
	return w.start(ctx, name, streamjob.TierName, o.arm, args...)
}

func (w *world) jobArgs(o jobOpts) []string {
	if o.version == 0 {
		o.version = 2
	}
	if o.every == "" {
		o.every = "0"
	}
	args := []string{"-name", "job", "-postgres", w.dsn, "-brokers", srv.Brokers, "-topic", w.topic,
		"-version", fmt.Sprint(o.version), "-checkpoint-every", o.every, "-valkey", srv.ValkeyAddr}
	if o.mutant != "" {
		args = append(args, "-mutant", o.mutant)
	}
	return args
}

// expectCrashed waits for p to die at a crash failpoint (kit.ExpectCrashed).
func expectCrashed(p *proc) {
	GinkgoHelper()
	kit.ExpectCrashed(p.Process)
}

// succeed commits payment id PENDING, then SUCCEEDED through the ledger's
// compare-and-set: two transactions, two changes on the stream.
func (w *world) succeed(ctx context.Context, id, merchant string, amount int64) {
	w.pending(ctx, id, merchant, amount)
	moved, err := w.led.Apply(ctx, ledger.Move{ID: id, From: []string{ledger.Pending}, To: ledger.Succeeded, Charge: "ch_" + id}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(moved).To(BeTrue())
}

// decline commits payment id PENDING, then FAILED (the PSP declined it).
func (w *world) decline(ctx context.Context, id, merchant string, amount int64) {
	w.pending(ctx, id, merchant, amount)
	moved, err := w.led.Apply(ctx, ledger.Move{ID: id, From: []string{ledger.Pending}, To: ledger.Failed}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(moved).To(BeTrue())
}

func (w *world) pending(ctx context.Context, id, merchant string, amount int64) {
	_, err := w.led.InsertPending(ctx, ledger.Payment{ID: id, Caller: "u-" + id, Key: "K-" + id, Fingerprint: "fp-" + id,
		Amount: amount, Currency: "USD", Merchant: merchant, Method: "pm_1", OrderID: "42", PSPKey: id + ":charge"})
	Expect(err).NotTo(HaveOccurred())
}
