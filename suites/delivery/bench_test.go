package delivery

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/bench/deliverybench"
	"github.com/idemcheck/idemcheck/suites/kit"
)

var (
	benchOnce sync.Once
	benchSrv  *kit.Env
	benchErr  error
	benchSeq  int
)

// benchServers starts the servers once per test binary run; TestMain stops
// them after every benchmark has run.
func benchServers(b *testing.B) *kit.Env {
	benchOnce.Do(func() { benchSrv, benchErr = kit.StartServers(context.Background(), benchNeed()) })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSrv
}

func stopBenchServers() {
	if benchSrv != nil {
		_ = benchSrv.Stop(context.Background())
	}
}

// BenchmarkEndToEnd measures events per second from outbox row to credit and
// push with every guard on (inbox, notification record and replace id, manual
// offset commits after the batch's transaction, read_committed), through the
// relay, worker and push processes, and prints it next to the raw
// produce-and-consume rate of the same Kafka in the same run (package
// deliverybench, which idemcheck bench calls too). One op is one event. Run
// with a fixed count, e.g. -benchtime=20000x.
func BenchmarkEndToEnd(b *testing.B) {
	s := benchServers(b)
	benchSeq++
	b.ResetTimer()
	res, err := deliverybench.Run(context.Background(), deliverybench.Config{PostgresDSN: s.Postgres,
		Brokers: []string{s.Brokers}, Events: b.N, Dir: b.TempDir(), Name: fmt.Sprintf("bench%d_%d", os.Getpid(), benchSeq)})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.Log(res)
	b.ReportMetric(float64(res.Delivery.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(res.DeliveryPerSec, "events/s")
	b.ReportMetric(res.RawPerSec, "raw-kafka-events/s")
	b.ReportMetric(res.Ratio, "e2e/raw")
}

// benchNeed is the suite's servers, their start-up lines on stderr.
func benchNeed() kit.Need {
	n := need
	n.Log = os.Stderr
	return n
}
