package shapes

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/suites/kit"
)

// world is one spec's slice of the servers: its own database, log dir,
// history recorder, seeded generator, and the tier processes it started.
type world struct {
	*kit.World
	name string
	dsn  string
	pool *pgxpool.Pool
	rec  *history.Recorder
	rng  *rand.Rand
}

// proc is one tier process and what it published.
type proc = kit.Proc

// newWorld builds a spec's world and registers its teardown. Its generator
// is seeded from Ginkgo's random seed and the spec's name, and the seed is
// printed: --ginkgo.seed=N replays the same choices.
func newWorld(ctx context.Context) *world {
	kw := srv.NewWorld("shapes", "shapes")
	w := &world{World: kw, name: kw.Name, rec: history.NewRecorder()}
	h := fnv.New64a()
	_, _ = h.Write([]byte(CurrentSpecReport().FullText()))
	seed := uint64(GinkgoRandomSeed()) ^ h.Sum64()
	w.rng = rand.New(rand.NewPCG(seed, 15))
	By(fmt.Sprintf("seed %d (from --ginkgo.seed=%d and the spec's name)", seed, GinkgoRandomSeed()))
	AddReportEntry("seed", seed)
	w.dsn, w.pool = w.Database(ctx)
	return w
}

// start runs tier tierName as process name, with failpoints armed ("point=
// action;...") before its first instruction, and waits for its addresses.
func (w *world) start(ctx context.Context, name, tierName, arm string, args ...string) *proc {
	GinkgoHelper()
	return w.Start(ctx, name, tierName, arm, args...)
}

// link opens a Toxiproxy link in front of a tier's http://host:port and
// returns it with its base URL.
func (w *world) link(name, baseURL string) (*kit.Link, string) {
	GinkgoHelper()
	l := w.Link(name, baseURL)
	return l, "http://" + l.Addr()
}

// expectCrashed waits for p to die at a crash failpoint: the exit status is
// the proof the fault fired.
func expectCrashed(p *proc) {
	GinkgoHelper()
	kit.ExpectCrashed(p.Process)
}

// check runs the checker over the spec's history (plus ground truth
// recorded elsewhere) and prints what it found.
func (w *world) check(extra ...history.Op) *checker.Result {
	GinkgoHelper()
	Expect(w.rec.Errors()).To(BeEmpty(), "the recorder refused ops")
	res := checker.Check(append(w.rec.History(), extra...), checker.CheckOptions{})
	GinkgoWriter.Print(res.Text())
	return res
}
