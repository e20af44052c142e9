package regions

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/router"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/worker"
)

var worldSeq atomic.Int64

// regionStack is one Region of a world.
type regionStack struct {
	name    string // R1, R2
	svc     *services.Stack
	mutants mutant.Set
	st      *refstack.Stack // nil while a standby Region waits for promotion
	topic   string
	group   string
	worker  string // the worker's name (its static group member id)
	pool    *pgxpool.Pool
}

// world is one spec's two Regions, router, PSP and recorder.
type world struct {
	// Record is the recorder the phones and the PSP share, and the PSP.
	*kit.Record
	name   string // the stacks' schema and key prefix, the same in both Regions
	logDir string
	rec    *history.Recorder
	psp    *fakepsp.PSP
	r1, r2 *regionStack
	lag    time.Duration
	// procs are the tiers outside the Regions: router, push provider,
	// replicators.
	procs       []*faults.Process
	routerURL   string
	routerAdmin string
	pushURL     string
	// follow (G2) is R2's subscription to R1; pgLink and vkLink carry it.
	follow         *region.PGFollow
	pgLink, vkLink *faults.Link
	// mrecLinks (G1) carry each replicator's items to the peer; slots are
	// the replicators' logical slots, one per Region.
	mrecLinks  []*faults.Link
	mrecAdmins map[string]string
	slots      map[*regionStack]string
	down       []func(ctx context.Context) // teardown steps, run in reverse
}

type mode int

const (
	activeActive mode = iota // G1: both Regions serve, mrec replicates payments
	standby                  // G2: R2 follows R1 through the servers' replication
)

type worldOpts struct {
	mode mode
	// mutants per Region, and of the router.
	r1, r2, router []mutant.Switch
}

func set(ms []mutant.Switch) mutant.Set {
	s := mutant.Set{}
	for _, m := range ms {
		s[m] = true
	}
	return s
}

func newWorld(ctx context.Context, o worldOpts) *world {
	n := worldSeq.Add(1)
	// The PSP is made first so that it closes last, after every tier stopped.
	record := kit.NewRecord()
	w := &world{Record: record, name: fmt.Sprintf("g%d_%d", os.Getpid(), n), rec: record.Rec, psp: record.PSP, lag: storytime.D(region.Lag),
		mrecAdmins: map[string]string{}, slots: map[*regionStack]string{}}
	var err error
	w.logDir, err = os.MkdirTemp("", "idemcheck-regions-"+w.name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(2*time.Minute))
	topic := "pay-" + w.name
	w.r1 = &regionStack{name: "R1", svc: srv.r1, mutants: set(o.r1), topic: topic, group: "workers-" + w.name, worker: "worker-1"}
	w.r2 = &regionStack{name: "R2", svc: srv.r2, mutants: set(o.r2), topic: topic, group: "workers-" + w.name, worker: "worker-1"}
	if o.mode == activeActive {
		// Active Regions keep their own queues and inboxes (SCENARIOS.md G1: Regional
		// dedup windows do not cross Regions).
		w.r1.topic, w.r1.group, w.r1.worker = topic+"-R1", w.r1.group+"-R1", "worker-R1"
		w.r2.topic, w.r2.group, w.r2.worker = topic+"-R2", w.r2.group+"-R2", "worker-R2"
	}
	for _, t := range dedupe(w.r1.topic, w.r2.topic) {
		resp, err := srv.adm.CreateTopic(ctx, 1, 1, nil, t)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Err).NotTo(HaveOccurred())
		w.down = append(w.down, func(ctx context.Context) { _, _ = srv.adm.DeleteTopic(ctx, t) })
	}
	p := w.startProc(ctx, "push", push.TierName)
	w.pushURL = p["push"]

	w.migrate(ctx, w.r1, true)
	w.migrate(ctx, w.r2, o.mode == activeActive)
	if o.mode == standby {
		w.followR1(ctx)
	}
	w.startRegion(ctx, w.r1)
	regions := "R1=" + w.r1.st.LB.URL
	if o.mode == activeActive {
		w.startRegion(ctx, w.r2)
		regions += ",R2=" + w.r2.st.LB.URL
		w.startReplicators(ctx)
	}
	r := w.startProc(ctx, "router", router.TierName, "-regions", regions, "-home", "u1=R1", "-default-home", "R1",
		"-mutants", set(o.router).String())
	w.routerURL, w.routerAdmin = r["http"], r["admin"]
	GinkgoWriter.Printf("world %s: logs %s, lag %v\n", w.name, w.logDir, w.lag)
	return w
}

func dedupe(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// migrate makes the world's schema in a Region: the ledger and the worker's
// tables, and m1's opening balance where the Region is its own primary (a
// follower gets it through replication).
func (w *world) migrate(ctx context.Context, r *regionStack, seed bool) {
	pool := w.pool(ctx, r)
	defer pool.Close()
	Expect(ledger.Migrate(ctx, pool)).To(Succeed())
	Expect(worker.Migrate(ctx, pool)).To(Succeed())
	if seed {
		_, err := pool.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) VALUES ('m1', 12000)`)
		Expect(err).NotTo(HaveOccurred())
	}
}

// pool opens a pool on the world's schema of Region r (the caller closes it).
func (w *world) pool(ctx context.Context, r *regionStack) *pgxpool.Pool {
	admin, err := pgxpool.New(ctx, r.svc.Postgres.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	_, err = admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS s_"+w.name)
	admin.Close()
	Expect(err).NotTo(HaveOccurred())
	pool, err := pgxpool.New(ctx, refstack.WithSearchPath(r.svc.Postgres.Endpoint(), "s_"+w.name))
	Expect(err).NotTo(HaveOccurred())
	return pool
}

// startRegion starts a Region's stack (LB, two API servers, resolver), its
// outbox relay and its worker.
func (w *world) startRegion(ctx context.Context, r *regionStack) {
	dir := filepath.Join(w.logDir, r.name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	st, err := refstack.Start(ctx, refstack.Config{PostgresDSN: r.svc.Postgres.Endpoint(), ValkeyAddr: r.svc.Valkey.Endpoint(),
		PSPURL: w.psp.URL(), PSPKey: w.psp.SecretKey(), Mutants: r.mutants, Name: w.name, Region: r.name, LogDir: dir})
	if st != nil {
		r.st = st
	}
	Expect(err).NotTo(HaveOccurred())
	_, err = st.StartTier(ctx, relay.TierName, "relay-"+r.name, "", []string{"-postgres", st.DSN, "-brokers", srv.brokers, "-topic", r.topic})
	Expect(err).NotTo(HaveOccurred())
	_, err = st.StartTier(ctx, worker.TierName, r.worker, "", []string{"-name", r.worker, "-postgres", st.DSN, "-brokers", srv.brokers,
		"-topic", r.topic, "-group", r.group, "-push", w.pushURL})
	Expect(err).NotTo(HaveOccurred())
}

// startProc runs a tier outside the Regions and returns its addresses.
func (w *world) startProc(ctx context.Context, name, tierName string, args ...string) map[string]string {
	GinkgoHelper()
	return kit.StartTier(ctx, w.logDir, name, tierName, "", func(p *faults.Process) { w.procs = append(w.procs, p) }, args...).Addrs
}

// teardown stops every process of both Regions, then removes the world's
// replication objects (subscription, slots, publication), topics and logs.
func (w *world) teardown(ctx SpecContext) {
	failed := CurrentSpecReport().Failed()
	// Every tier of both Regions gets its SIGTERM at once: a tier that
	// lingers costs its grace period once, not once per tier.
	var wg sync.WaitGroup
	stop := func(name string, p *faults.Process) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			_ = p.Stop(5 * time.Second)
			if d := time.Since(t0); d > time.Second {
				GinkgoWriter.Printf("teardown: %s took %v to stop\n", name, d.Round(time.Millisecond))
			}
		}()
	}
	for _, r := range []*regionStack{w.r1, w.r2} {
		if r != nil && r.st != nil {
			for _, t := range r.st.Tiers() {
				stop(r.name+"/"+t.Name, t.Proc)
			}
		}
	}
	for _, p := range w.procs {
		stop(p.Name(), p)
	}
	wg.Wait()
	for _, r := range []*regionStack{w.r1, w.r2} {
		if r != nil && r.st != nil {
			if failed {
				w.dumpLogs(r.st.LogDir())
			}
			r.st.Stop() // its pool and log dir; its processes are gone
		}
	}
	if failed {
		w.dumpLogs(w.logDir)
	}
	// The links must pass again so the slots' walsenders let go.
	for _, l := range append([]*faults.Link{w.pgLink, w.vkLink}, w.mrecLinks...) {
		if l != nil {
			_ = l.Heal()
		}
	}
	if w.follow != nil {
		Expect(w.follow.Stop(ctx)).To(Succeed())
	}
	if w.vkLink != nil {
		Expect(region.PromoteValkey(ctx, w.r2.svc.Valkey.Endpoint())).To(Succeed())
	}
	for r, slot := range w.slots {
		Expect(mrec.DropSlot(ctx, r.svc.Postgres.Endpoint(), slot, 30*time.Second)).To(Succeed())
	}
	for i := len(w.down) - 1; i >= 0; i-- {
		w.down[i](ctx)
	}
	for _, st := range []*services.Stack{srv.r1, srv.r2} {
		left, err := region.Leftovers(ctx, st.Postgres.Endpoint(), w.name)
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty(), "world %s left replication objects", w.name)
	}
	_ = os.RemoveAll(w.logDir)
}

func (w *world) dumpLogs(dir string) { kit.ReportLogs(dir, filepath.Base(dir)+"/", 12<<10) }

// phone is u1's app; nearest is the Region its network reaches first, a
// hint only the mutant router follows.
func (w *world) phone(name, nearest string) *phone.Phone {
	return &phone.Phone{Name: name, Caller: "u1", Base: w.routerURL, Rec: w.rec,
		Header: http.Header{router.NearestHeader: []string{nearest}}}
}

// admin calls a router admin path.
func (w *world) admin(method, path string) {
	GinkgoHelper()
	req, err := http.NewRequest(method, w.routerAdmin+path, nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusNoContent), "router %s %s", method, path)
}

// eventually bounds a wait in story seconds, plus room for a loaded machine.
func eventually(story float64) time.Duration { return storytime.D(story) + 20*time.Second }
