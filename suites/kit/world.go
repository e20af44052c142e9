package kit

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
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
	ginkgo.GinkgoHelper()
	w := &World{Name: fmt.Sprintf("%s%d_%d", prefix, os.Getpid(), worldSeq.Add(1)), Env: e}
	var err error
	w.Dir, err = os.MkdirTemp("", "idemcheck-"+suite+"-"+w.Name+"-")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(w.teardown, ginkgo.NodeTimeout(2*time.Minute))
	return w
}

// OnTeardown runs f after the world's processes stopped, before the
// resources made earlier are undone (teardowns run in reverse order).
func (w *World) OnTeardown(f func(ctx context.Context)) { w.down = append(w.down, f) }

func (w *World) teardown(ctx ginkgo.SpecContext) {
	StopAll(w.procs)
	if ginkgo.CurrentSpecReport().Failed() {
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
	ginkgo.GinkgoHelper()
	_, err := w.Env.Admin.Exec(ctx, "CREATE DATABASE "+w.Name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	dsn, err = WithDatabase(w.Env.Postgres, w.Name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	pool, err = pgxpool.New(ctx, dsn)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	w.OnTeardown(func(ctx context.Context) {
		pool.Close()
		_, err := w.Env.Admin.Exec(ctx, "DROP DATABASE IF EXISTS "+w.Name+" WITH (FORCE)")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "drop database %s", w.Name)
	})
	return dsn, pool
}

// Topic creates a one-partition Kafka topic the teardown deletes.
func (w *World) Topic(ctx context.Context, topic string) {
	ginkgo.GinkgoHelper()
	resp, err := w.Env.KafkaAdmin.CreateTopic(ctx, 1, 1, nil, topic)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(resp.Err).NotTo(gomega.HaveOccurred())
	w.OnTeardown(func(ctx context.Context) { _, _ = w.Env.KafkaAdmin.DeleteTopic(ctx, topic) })
}

// WithDatabase points a postgres:// DSN at another database of its cluster.
func WithDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("postgres DSN: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}
