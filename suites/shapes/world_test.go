package shapes

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
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
	"github.com/idemcheck/idemcheck/targets/tier"
)

var worldSeq atomic.Int64

// world is one spec's slice of the servers: its own database, log dir,
// history recorder, seeded generator, and the tier processes it started.
type world struct {
	name   string
	dsn    string
	pool   *pgxpool.Pool
	logDir string
	rec    *checker.Recorder
	rng    *rand.Rand
	procs  []*proc
	links  []*faults.Link
}

// proc is one tier process and what it published.
type proc struct {
	*faults.Process
	addrs map[string]string
}

// newWorld builds a spec's world and registers its teardown. Its generator
// is seeded from Ginkgo's random seed and the spec's name, and the seed is
// printed: --ginkgo.seed=N replays the same choices.
func newWorld(ctx context.Context) *world {
	n := worldSeq.Add(1)
	w := &world{name: fmt.Sprintf("shapes%d_%d", os.Getpid(), n), rec: checker.NewRecorder()}
	h := fnv.New64a()
	_, _ = h.Write([]byte(CurrentSpecReport().FullText()))
	seed := uint64(GinkgoRandomSeed()) ^ h.Sum64()
	w.rng = rand.New(rand.NewPCG(seed, 15))
	By(fmt.Sprintf("seed %d (from --ginkgo.seed=%d and the spec's name)", seed, GinkgoRandomSeed()))
	AddReportEntry("seed", seed)

	var err error
	w.logDir, err = os.MkdirTemp("", "idemcheck-shapes-"+w.name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(time.Minute))
	_, err = srv.adminPool.Exec(ctx, "CREATE DATABASE "+w.name)
	Expect(err).NotTo(HaveOccurred())
	u, err := url.Parse(srv.stack.Postgres.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	u.Path = "/" + w.name
	w.dsn = u.String()
	w.pool, err = pgxpool.New(ctx, w.dsn)
	Expect(err).NotTo(HaveOccurred())
	return w
}

func (w *world) teardown(ctx SpecContext) {
	for _, p := range w.procs {
		_ = p.Stop(5 * time.Second)
	}
	if CurrentSpecReport().Failed() {
		w.dumpLogs()
	}
	for _, l := range w.links {
		_ = l.Heal()
		_, _ = l.Disable()
	}
	if w.pool != nil {
		w.pool.Close()
	}
	_, _ = srv.adminPool.Exec(ctx, "DROP DATABASE IF EXISTS "+w.name+" WITH (FORCE)")
	_ = os.RemoveAll(w.logDir)
}

// dumpLogs copies every tier log into a failed spec's report.
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

// start runs tier tierName as process name, with failpoints armed ("point=
// action;...") before its first instruction, and waits for its addresses.
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
	return p
}

// link opens a Toxiproxy link in front of a tier's http://host:port and
// returns it with its base URL.
func (w *world) link(name, baseURL string) (*faults.Link, string) {
	l, err := srv.tp.Link(w.name+"-"+name, strings.TrimPrefix(baseURL, "http://"))
	Expect(err).NotTo(HaveOccurred())
	w.links = append(w.links, l)
	return l, "http://" + l.Addr()
}

// expectCrashed waits for p to die at a crash failpoint: the exit status is
// the proof the fault fired.
func expectCrashed(p *proc) {
	GinkgoHelper()
	err := p.Wait(60 * time.Second)
	var ee *exec.ExitError
	Expect(errors.As(err, &ee)).To(BeTrue(), "%s did not exit at its failpoint: %v (log %s)", p.Name(), err, p.LogPath())
	Expect(ee.ExitCode()).To(Equal(failpoint.CrashCode), "%s exited with %d, not the failpoint crash code", p.Name(), ee.ExitCode())
}

// check runs the checker over the spec's history (plus ground truth
// recorded elsewhere) and prints what it found.
func (w *world) check(extra ...checker.Op) *checker.Result {
	GinkgoHelper()
	Expect(w.rec.Errors()).To(BeEmpty(), "the recorder refused ops")
	res := checker.Check(append(w.rec.History(), extra...), checker.CheckOptions{})
	GinkgoWriter.Print(res.Text())
	return res
}
