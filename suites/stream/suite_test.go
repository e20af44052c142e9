// Package stream holds the suite of SCENARIOS.md group F: the
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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/suites/kit"
	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so this binary can become any of them
)

func TestMain(m *testing.M) { kit.Main(m, stopBenchServers) }

func TestStream(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "stream")
}

// need is what every spec shares: one Postgres cluster (a database, a
// publication and a replication slot per spec), one Kafka (a topic per spec),
// one Valkey (the seen-ids-external mutant's cache, keys prefixed per job).
var need = kit.Need{Postgres: true, Kafka: true, Valkey: true, Setup: setup}

var srv = kit.Servers(need)

// setup refuses a Postgres without logical decoding (an external one may
// run without it: say so here, not as a connector that never starts), then
// sweeps what killed runs left.
func setup(ctx context.Context, s *kit.Env) error {
	var wal string
	if err := s.Admin.QueryRow(ctx, `SHOW wal_level`).Scan(&wal); err != nil || wal != "logical" {
		return fmt.Errorf("postgres %s: wal_level is %q (%v); the change stream needs wal_level=logical", s.Stack.Provider, wal, err)
	}
	sweepSlots(ctx, s, GinkgoWriter)
	sweepLogDirs()
	return nil
}

// slotPrefix names every replication slot this suite creates, followed by
// the harness pid: a slot outlives its run only on an external Postgres
// (a local server dies with its run, slots and all), and the next run drops
// the inactive slots whose owner is gone, and their databases.
const slotPrefix = "idemcheck_stream_"

func sweepSlots(ctx context.Context, s *kit.Env, log io.Writer) {
	rows, err := s.Admin.Query(ctx, `SELECT slot_name, database FROM pg_replication_slots WHERE NOT active AND slot_name LIKE $1`, slotPrefix+"%")
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
		_, _ = s.Admin.Exec(ctx, `SELECT pg_drop_replication_slot($1)`, sl.name)
		_, _ = s.Admin.Exec(ctx, "DROP DATABASE IF EXISTS "+sl.db+" WITH (FORCE)")
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
