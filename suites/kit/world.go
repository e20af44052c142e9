package kit

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var worldSeq atomic.Int64

// World is one spec's private slice of the servers: a name unique on the
// machine (prefix, pid, sequence), a log dir, the tier processes it
// started, and the databases and topics it made. Its teardown, registered
// by NewWorld, stops the processes first (a tier must not see its database
// vanish), adds the tails of their logs to a failed spec's report, then
// undoes the resources in reverse order and removes the log dir.
type World struct {
	Name string
	Dir  string
	Env  *Env

	procs []*Proc
	down  []func(ctx context.Context)
}

// NewWorld makes a spec's world; suite names the log dir
// (idemcheck-<suite>-<name>-*), prefix starts the world's name.
func (e *Env) NewWorld(suite, prefix string) *World {
	GinkgoHelper()
	w := &World{Name: fmt.Sprintf("%s%d_%d", prefix, os.Getpid(), worldSeq.Add(1)), Env: e}
	var err error
	w.Dir, err = os.MkdirTemp("", "idemcheck-"+suite+"-"+w.Name+"-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.teardown, NodeTimeout(2*time.Minute))
	return w
}

// OnTeardown runs f after the world's processes stopped, before the
// resources made earlier are undone (teardowns run in reverse order).
func (w *World) OnTeardown(f func(ctx context.Context)) { w.down = append(w.down, f) }

func (w *World) teardown(ctx SpecContext) {
	StopAll(w.procs)
	if CurrentSpecReport().Failed() {
		ReportLogs(w.Dir, "", 16<<10)
	}
	for i := len(w.down) - 1; i >= 0; i-- {
		w.down[i](ctx)
	}
	_ = os.RemoveAll(w.Dir)
}

// Database creates the world's own database (named after the world) with
// its pool; teardown closes the pool and drops the database.
func (w *World) Database(ctx context.Context) (dsn string, pool *pgxpool.Pool) {
	GinkgoHelper()
	_, err := w.Env.Admin.Exec(ctx, "CREATE DATABASE "+w.Name)
	Expect(err).NotTo(HaveOccurred())
	dsn = WithDatabase(w.Env.Postgres, w.Name)
	pool, err = pgxpool.New(ctx, dsn)
	Expect(err).NotTo(HaveOccurred())
	w.OnTeardown(func(ctx context.Context) {
		pool.Close()
		_, err := w.Env.Admin.Exec(ctx, "DROP DATABASE IF EXISTS "+w.Name+" WITH (FORCE)")
		Expect(err).NotTo(HaveOccurred(), "drop database %s", w.Name)
	})
	return dsn, pool
}

// Topic creates a one-partition Kafka topic the teardown deletes.
func (w *World) Topic(ctx context.Context, topic string) {
	GinkgoHelper()
	resp, err := w.Env.KafkaAdmin.CreateTopic(ctx, 1, 1, nil, topic)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Err).NotTo(HaveOccurred())
	w.OnTeardown(func(ctx context.Context) { _, _ = w.Env.KafkaAdmin.DeleteTopic(ctx, topic) })
}

// WithDatabase points a postgres:// DSN at another database of its cluster.
func WithDatabase(dsn, db string) string {
	GinkgoHelper()
	u, err := url.Parse(dsn)
	Expect(err).NotTo(HaveOccurred())
	u.Path = "/" + db
	return u.String()
}
