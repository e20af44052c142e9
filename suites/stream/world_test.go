package stream

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

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/streamjob"
	"github.com/idemcheck/idemcheck/targets/tier"
)

var worldSeq atomic.Int64

// world is one spec's slice of the servers: its own database (ledger, sink,
// checkpoints), publication, replication slot and topic, and the tier
// processes it started.
type world struct {
	name   string
	dsn    string
	pool   *pgxpool.Pool
	led    *ledger.Ledger
	topic  string
	slot   string
	logDir string
	procs  []*proc
}

// proc is one tier process and its admin endpoint.
type proc struct {
	*faults.Process
	admin string
}

func newWorld(ctx context.Context) *world {
	n := worldSeq.Add(1)
	w := &world{
		name:  fmt.Sprintf("s%d_%d", os.Getpid(), n),
		topic: fmt.Sprintf("changes-%d-%d", os.Getpid(), n),
		slot:  fmt.Sprintf("%s%d_%d", slotPrefix, os.Getpid(), n),
	}
	var err error
	w.logDir, err = os.MkdirTemp("", "idemcheck-stream-"+w.name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(time.Minute))
	_, err = srv.adminPool.Exec(ctx, "CREATE DATABASE "+w.name)
	Expect(err).NotTo(HaveOccurred())
	u, _ := url.Parse(srv.pg)
	u.Path = "/" + w.name
	w.dsn = u.String()
	w.pool, err = pgxpool.New(ctx, w.dsn)
	Expect(err).NotTo(HaveOccurred())
	w.led = &ledger.Ledger{Pool: w.pool}
	Expect(ledger.Migrate(ctx, w.pool)).To(Succeed())
	Expect(streamjob.Migrate(ctx, w.pool)).To(Succeed())
	resp, err := srv.adm.CreateTopic(ctx, 1, 1, nil, w.topic)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("world %s: db %s topic %s slot %s logs %s\n", w.name, w.name, w.topic, w.slot, w.logDir)
	return w
}

// teardown stops the world's processes, then drops its slot (a slot pins
// its database and the server's WAL), its database and its topic.
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
	// A stopped connector's walsender on the server can hold the slot a few
	// moments after the process is gone: end it (the slot is the test's own)
	// and drop the slot once it is free.
	Eventually(func(ctx context.Context) error {
		_, _ = srv.adminPool.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, w.slot)
		_, err := srv.adminPool.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, w.slot)
		return err
	}).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(100*time.Millisecond).Should(Succeed(), "drop slot %s", w.slot)
	_, err := srv.adminPool.Exec(ctx, "DROP DATABASE IF EXISTS "+w.name+" WITH (FORCE)")
	Expect(err).NotTo(HaveOccurred(), "drop database %s", w.name)
	_, _ = srv.adm.DeleteTopic(ctx, w.topic)
	_ = os.RemoveAll(w.logDir)
}

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

// start runs tier tierName as process name with failpoints armed from its
// first instruction (arm: "point=action;...").
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
	addrs, err := tier.ReadAddrs(rctx, addrFile)
	Expect(err).NotTo(HaveOccurred(), "tier %s did not publish its addresses (log %s)", name, fp.LogPath())
	p.admin = addrs["admin"]
	return p
}

func (w *world) startConnector(ctx context.Context, name, arm string) *proc {
	return w.start(ctx, name, connector.TierName, arm, "-postgres", w.dsn, "-brokers", srv.brokers, "-topic", w.topic, "-slot", w.slot)
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
func (w *world) startJobNoWait(ctx context.Context, name string, o jobOpts) *proc {
	cmd, err := tier.Command(streamjob.TierName, append(w.jobArgs(o), "-failpoints", o.arm)...)
	Expect(err).NotTo(HaveOccurred())
	fp, err := faults.StartProcess(name, cmd, w.logDir)
	Expect(err).NotTo(HaveOccurred())
	p := &proc{Process: fp}
	w.procs = append(w.procs, p)
	return p
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
	args := []string{"-name", "job", "-postgres", w.dsn, "-brokers", srv.brokers, "-topic", w.topic,
		"-version", fmt.Sprint(o.version), "-checkpoint-every", o.every, "-valkey", srv.valkey}
	if o.mutant != "" {
		args = append(args, "-mutant", o.mutant)
	}
	return args
}

// expectCrashed waits for p to die at a crash failpoint: the exit status
// proves the fault fired, so a spec cannot pass when the point was missed.
func expectCrashed(p *proc) {
	err := p.Wait(60 * time.Second)
	var ee *exec.ExitError
	Expect(errors.As(err, &ee)).To(BeTrue(), "%s did not exit at its failpoint: %v (log %s)", p.Name(), err, p.LogPath())
	Expect(ee.ExitCode()).To(Equal(failpoint.CrashCode), "%s exited with %d, not the failpoint crash code", p.Name(), ee.ExitCode())
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
