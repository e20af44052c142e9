package story

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/launch"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/resolver"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/streamjob"
	"github.com/idemcheck/idemcheck/targets/webhook"
	"github.com/idemcheck/idemcheck/targets/worker"
)

var worldSeq atomic.Int64

// opts are a story's mutants: each tier of both Regions gets mutants;
// workerMutant is the worker's switches (worker -mutants) and streamMutant
// the stream job's. wantSink is the sink the restore must leave.
type opts struct {
	mutants      []mutant.Switch
	workerMutant string
	streamMutant mutant.Switch
	wantSink     map[string]int64
}

// world is one story: both Regions' databases and stacks, the shared PSP,
// log topics, push provider, router, the webhook gate, the change stream and
// the timeline.
type world struct {
	o      opts
	name   string // schema s_<name> in R1's and R2's ledgers, key prefix, topics
	logDir string
	rec    *history.Recorder
	psp    *fakepsp.PSP

	// R1's ledger lives in the postgres database (region.FollowPostgres
	// subscribes to it there); R2's in its own database db2, next to the
	// stream job's schema, so the connector's publication is the world's own.
	dsn1, dsn2 string // superuser DSNs of each Region's ledger database
	db2        string
	pool1      *pgxpool.Pool
	pool2      *pgxpool.Pool // R2's ledger schema
	stream     *pgxpool.Pool // R2's stream schema (sink, checkpoints)

	r1, r2      *refstack.Stack
	mutants     mutant.Set
	topic       string // the payment events (both Regions' relays)
	group       string
	changes     string // the connector's topic
	slot        string // the connector's slot in R2
	follow      *region.PGFollow
	pgLink      *faults.Link
	vkLink      *faults.Link
	r1Link      *faults.Link // router -> R1's LB
	procs       []*faults.Process
	pushURL     string
	screen      *push.Client
	routerURL   string
	routerAdm   string
	gate        *httptest.Server
	gateTarget  atomic.Value // R2's webhook URL once it serves; until then the PSP's delivery is refused
	gateRefused atomic.Int64
	down        []func(ctx context.Context)
}

func newWorld(ctx context.Context, o opts) *world {
	n := worldSeq.Add(1)
	w := &world{o: o, name: fmt.Sprintf("h%d_%d", os.Getpid(), n), rec: history.NewRecorder(), mutants: mutant.Set{}}
	for _, m := range o.mutants {
		w.mutants[m] = true
	}
	w.topic, w.group, w.changes = "pay-"+w.name, "workers-"+w.name, "changes-"+w.name
	w.slot, w.db2 = "idemcheck_story_"+w.name, "d_"+w.name
	var err error
	w.logDir, err = os.MkdirTemp("", "idemcheck-story-"+w.name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(2*time.Minute))

	w.psp, err = fakepsp.Start(fakepsp.Config{KeyWindow: 24 * time.Hour, Recorder: w.rec, RateLimits: fakepsp.RateLimits{Disabled: true},
		// A refused delivery is retried every 2 story seconds.
		WebhookSchedule: fakepsp.WebhookSchedule{Base: storytime.D(2), Factor: 1, Horizon: time.Hour}})
	Expect(err).NotTo(HaveOccurred())
	w.down = append(w.down, func(context.Context) { _ = w.psp.Close() })
	w.startGate()
	_, err = w.psp.RegisterWebhook(w.gate.URL+webhook.Path, "payment_intent.succeeded")
	Expect(err).NotTo(HaveOccurred())

	for _, t := range []string{w.topic, w.changes} {
		resp, err := srv.adm.CreateTopic(ctx, 1, 1, nil, t)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Err).NotTo(HaveOccurred())
		w.down = append(w.down, func(ctx context.Context) { _, _ = srv.adm.DeleteTopic(ctx, t) })
	}
	w.pushURL = w.startProc(ctx, "push", push.TierName)["push"]
	w.screen = push.NewClient(w.pushURL)

	w.databases(ctx)
	w.followR1(ctx)
	w.startR1(ctx)
	w.startStream(ctx)
	// The router reaches R1 through a link, where R1's answers can be lost.
	w.r1Link, err = srv.toxi.Link(w.name+"-router-R1", strings.TrimPrefix(w.r1.LB.URL, "http://"))
	Expect(err).NotTo(HaveOccurred())
	r := w.startProc(ctx, "router", "router", "-regions", "R1=http://"+w.r1Link.Addr(), "-home", "u1=R1", "-default-home", "R1")
	w.routerURL, w.routerAdm = r["http"], r["admin"]
	GinkgoWriter.Printf("world %s: logs %s\n", w.name, w.logDir)
	return w
}

// databases makes the ledger schema in both Regions (m1's opening balance
// in R1 only: R2 gets it by replication) and the stream job's schema in R2.
func (w *world) databases(ctx context.Context) {
	w.dsn1 = srv.r1.Postgres.Endpoint()
	_, err := srv.admin2.Exec(ctx, "CREATE DATABASE "+w.db2)
	Expect(err).NotTo(HaveOccurred())
	u, err := url.Parse(srv.r2.Postgres.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	u.Path = "/" + w.db2
	w.dsn2 = u.String()
	w.pool1 = w.schemaPool(ctx, w.dsn1, "s_"+w.name)
	w.pool2 = w.schemaPool(ctx, w.dsn2, "s_"+w.name)
	w.stream = w.schemaPool(ctx, w.dsn2, "t_"+w.name)
	for _, p := range []*pgxpool.Pool{w.pool1, w.pool2} {
		Expect(ledger.Migrate(ctx, p)).To(Succeed())
		Expect(worker.Migrate(ctx, p)).To(Succeed())
	}
	_, err = w.pool1.Exec(ctx, `INSERT INTO merchant_balances (merchant, balance) VALUES ('m1', 12000)`)
	Expect(err).NotTo(HaveOccurred())
	Expect(streamjob.Migrate(ctx, w.stream)).To(Succeed())
}

func (w *world) schemaPool(ctx context.Context, dsn, schema string) *pgxpool.Pool {
	admin, err := pgxpool.New(ctx, dsn)
	Expect(err).NotTo(HaveOccurred())
	_, err = admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
	admin.Close()
	Expect(err).NotTo(HaveOccurred())
	p, err := pgxpool.New(ctx, refstack.WithSearchPath(dsn, schema))
	Expect(err).NotTo(HaveOccurred())
	w.down = append(w.down, func(context.Context) { p.Close() })
	return p
}

// startGate is the PSP's webhook endpoint: it refuses every delivery (503,
// the PSP retries later) until R2's webhook tier serves, then forwards. That
// is the late webhook: the PSP's event reaches a webhook only after the
// resolver settled the payment.
func (w *world) startGate() {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	w.gate = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		target, _ := w.gateTarget.Load().(string)
		if target == "" {
			w.gateRefused.Add(1)
			http.Error(rw, "no webhook serves yet", http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target+r.URL.Path, strings.NewReader(string(body)))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		rw.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(rw, resp.Body)
	}))
	w.down = append(w.down, func(context.Context) { w.gate.Close() })
}

// startR1 starts R1: LB, two API servers and the resolver (held: it may not
// settle before R2 has seen the payment UNKNOWN), its relay and its worker.
func (w *world) startR1(ctx context.Context) {
	dir := filepath.Join(w.logDir, "R1")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	st, err := refstack.Start(ctx, refstack.Config{PostgresDSN: w.dsn1, ValkeyAddr: srv.r1.Valkey.Endpoint(), PSPURL: w.psp.URL(),
		PSPKey: w.psp.SecretKey(), Mutants: w.mutants, Name: w.name, Region: "R1", LogDir: dir})
	if st != nil {
		w.r1 = st
	}
	Expect(err).NotTo(HaveOccurred())
	Expect(faults.FailpointAt(st.Resolver.Admin, resolver.SweepPoint).Arm("error")).To(Succeed())
	_, err = st.StartTier(ctx, "relay", "relay-R1", "", []string{"-postgres", st.DSN, "-brokers", srv.brokers, "-topic", w.topic})
	Expect(err).NotTo(HaveOccurred())
	_, err = st.StartTier(ctx, worker.TierName, "worker-R1", "", w.workerArgs("worker-R1", st.DSN))
	Expect(err).NotTo(HaveOccurred())
}

func (w *world) workerArgs(name, dsn string) []string {
	args := []string{"-name", name, "-postgres", dsn, "-brokers", srv.brokers, "-topic", w.topic, "-group", w.group, "-push", w.pushURL}
	if w.o.workerMutant != "" {
		args = append(args, "-mutants", w.o.workerMutant)
	}
	return args
}

// startProc runs a tier outside the Regions' stacks and returns its
// addresses; arm ("point=action;...") arms failpoints from its start.
func (w *world) startProc(ctx context.Context, name, tierName string, args ...string) map[string]string {
	_, addrs := w.startProcArmed(ctx, name, tierName, "", args...)
	return addrs
}

func (w *world) startProcArmed(ctx context.Context, name, tierName, arm string, args ...string) (*faults.Process, map[string]string) {
	t, err := launch.Start(ctx, launch.Spec{Dir: w.logDir, Name: name, Tier: tierName, Arm: arm, Args: args,
		Track: func(p *faults.Process) { w.procs = append(w.procs, p) }})
	Expect(err).NotTo(HaveOccurred())
	return t.Proc, t.Addrs
}

// teardown stops every process, then removes the world's replication
// objects, databases, topics and logs; a failed story's logs go in the report.
func (w *world) teardown(ctx SpecContext) {
	failed := CurrentSpecReport().Failed()
	var wg sync.WaitGroup
	stop := func(p *faults.Process) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.Stop(5 * time.Second) }()
	}
	for _, st := range []*refstack.Stack{w.r1, w.r2} {
		if st != nil {
			for _, t := range st.Tiers() {
				stop(t.Proc)
			}
		}
	}
	for _, p := range w.procs {
		stop(p)
	}
	wg.Wait()
	for _, st := range []*refstack.Stack{w.r1, w.r2} {
		if st != nil {
			if failed {
				w.dumpLogs(st.LogDir())
			}
			st.Stop()
		}
	}
	if failed {
		w.dumpLogs(w.logDir)
	}
	for _, l := range []*faults.Link{w.pgLink, w.vkLink, w.r1Link} {
		if l != nil {
			_ = l.Heal()
		}
	}
	if w.follow != nil {
		Expect(w.follow.Stop(ctx)).To(Succeed())
	}
	if w.vkLink != nil {
		Expect(region.PromoteValkey(ctx, srv.r2.Valkey.Endpoint())).To(Succeed())
	}
	if w.dsn2 != "" {
		Expect(mrec.DropSlot(ctx, w.dsn2, w.slot, 30*time.Second)).To(Succeed())
	}
	for i := len(w.down) - 1; i >= 0; i-- {
		w.down[i](ctx)
	}
	_, err := srv.admin2.Exec(ctx, "DROP DATABASE IF EXISTS "+w.db2+" WITH (FORCE)")
	Expect(err).NotTo(HaveOccurred())
	_, err = srv.admin1.Exec(ctx, "DROP SCHEMA IF EXISTS s_"+w.name+" CASCADE")
	Expect(err).NotTo(HaveOccurred())
	for _, dsn := range []string{srv.r1.Postgres.Endpoint(), srv.r2.Postgres.Endpoint()} {
		left, err := region.Leftovers(ctx, dsn, w.name)
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty(), "world %s left replication objects", w.name)
	}
	_ = os.RemoveAll(w.logDir)
}

func (w *world) dumpLogs(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if len(b) > 12<<10 {
			b = b[len(b)-12<<10:]
		}
		AddReportEntry("log "+filepath.Base(dir)+"/"+e.Name(), string(b))
	}
}
