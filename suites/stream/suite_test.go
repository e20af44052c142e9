// Package stream holds the suite of SCENARIOS.md group F (seed Part 8): the
// ledger's change stream read by the connector (logical replication,
// pgoutput) into Kafka, the stream job's merchant daily totals with
// checkpoints, barrier tags, the full flush, dedup state and the watermark
// floor, and the sink checked against the ledger. Every tier runs as its own
// OS process, a re-execution of this test binary.
package stream

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so this binary can become any of them
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch()
	code := m.Run()
	stopBenchServers()
	os.Exit(code)
}

func TestStream(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "stream")
}

// servers is what every spec shares: one Postgres cluster (a database, a
// publication and a replication slot per spec), one Kafka (a topic per spec),
// one Valkey (the seen-ids-external mutant's cache, keys prefixed per job).
type servers struct {
	stack     *services.Stack
	pg        string
	brokers   string
	valkey    string
	adminPool *pgxpool.Pool
	kc        *kgo.Client
	adm       *kadm.Client
}

var srv *servers

var _ = BeforeSuite(func(ctx SpecContext) {
	s, err := startServers(ctx, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	srv = s
	DeferCleanup(func(ctx SpecContext) { srv.stop(ctx) }, NodeTimeout(time.Minute))
}, NodeTimeout(4*time.Minute))

func startServers(ctx context.Context, log io.Writer) (*servers, error) {
	st, err := services.Start(ctx, services.Options{Postgres: true, Kafka: true, Valkey: true, Log: log})
	if err != nil {
		return nil, err
	}
	s := &servers{stack: st, pg: st.Postgres.Endpoint(), brokers: st.Kafka.Endpoint(), valkey: st.Valkey.Endpoint()}
	if s.adminPool, err = pgxpool.New(ctx, s.pg); err != nil {
		_ = st.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	// An external Postgres may not run with logical decoding: say so here,
	// not as a connector that never starts.
	var wal string
	if err := s.adminPool.QueryRow(ctx, `SHOW wal_level`).Scan(&wal); err != nil || wal != "logical" {
		s.adminPool.Close()
		_ = st.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("postgres %s: wal_level is %q (%v); the change stream needs wal_level=logical", st.Provider, wal, err)
	}
	if s.kc, err = kgo.NewClient(kgo.SeedBrokers(s.brokers)); err != nil {
		s.adminPool.Close()
		_ = st.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	s.adm = kadm.NewClient(s.kc)
	sweepSlots(ctx, s, log)
	sweepLogDirs()
	return s, nil
}

func (s *servers) stop(ctx context.Context) {
	s.kc.Close()
	s.adminPool.Close()
	_ = s.stack.Stop(ctx)
}

// slotPrefix names every replication slot this suite creates, followed by
// the harness pid: a slot outlives its run only on an external Postgres
// (a local server dies with its run, slots and all), and the next run drops
// the inactive slots whose owner is gone, and their databases.
const slotPrefix = "idemcheck_stream_"

func sweepSlots(ctx context.Context, s *servers, log io.Writer) {
	rows, err := s.adminPool.Query(ctx, `SELECT slot_name, database FROM pg_replication_slots WHERE NOT active AND slot_name LIKE $1`, slotPrefix+"%")
	if err != nil {
		return
	}
	type slot struct{ name, db string }
	var stale []slot
	for rows.Next() {
		var sl slot
		if rows.Scan(&sl.name, &sl.db) == nil {
			stale = append(stale, sl)
		}
	}
	rows.Close()
	for _, sl := range stale {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(sl.name, slotPrefix), "_", 2)[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		_, _ = s.adminPool.Exec(ctx, `SELECT pg_drop_replication_slot($1)`, sl.name)
		_, _ = s.adminPool.Exec(ctx, "DROP DATABASE IF EXISTS "+sl.db+" WITH (FORCE)")
		_, _ = io.WriteString(log, "swept stale slot "+sl.name+" of database "+sl.db+"\n")
	}
}

// sweepLogDirs removes the log directories of worlds whose run was killed
// (named idemcheck-stream-s<pid>_<n>-*), the way services sweeps its own.
func sweepLogDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-stream-s*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), "idemcheck-stream-s")
		pid, err := strconv.Atoi(strings.SplitN(rest, "_", 2)[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		_ = os.RemoveAll(d)
	}
}
