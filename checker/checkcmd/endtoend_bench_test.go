package checkcmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// BenchmarkEndToEnd1M times exactly what `idemcheck bench` reports as
// checker_1m_s (bench/checker.go): RunGen writes a 1M-op history,
// Run reads and checks it, timed together. In the same run it times the
// parts on their own (generate, write, read, check in memory), so the
// figures are ratios of one run on one machine, not numbers across runs.
// The CPU seconds (user + system) of the timed commands come with them: on
// a shared machine they say more than the wall clock about a change:
//
//	go test ./checker/checkcmd -run '^$' -bench EndToEnd1M -benchtime 1x
func BenchmarkEndToEnd1M(b *testing.B) {
	if testing.Short() {
		b.Skip("1M ops: not with -short")
	}
	file := filepath.Join(b.TempDir(), "1m.jsonl")
	for i := 0; i < b.N; i++ {
		runtime.GC()
		c0, t0 := cpuTime(), time.Now()
		phase("gen", func() {
			if code := RunGen([]string{"--ops", "1000000", "--seed", "1", "--out", file}, io.Discard, os.Stderr); code != ExitOK {
				b.Fatalf("gen: exit %d", code)
			}
		})
		c1, t1 := cpuTime(), time.Now()
		phase("check", func() {
			if code := Run([]string{file}, io.Discard, os.Stderr); code != ExitOK {
				b.Fatalf("check: exit %d", code)
			}
		})
		c2, t2 := cpuTime(), time.Now()

		runtime.GC()
		t3 := time.Now()
		var h history.History
		phase("generate", func() { h, _ = history.Generate(history.GenOptions{Seed: 1, Ops: 1_000_000}) })
		t4 := time.Now()
		phase("write", func() {
			if err := writeFile(file, h); err != nil {
				b.Fatal(err)
			}
		})
		t5 := time.Now()
		h = nil
		runtime.GC()
		t6 := time.Now()
		phase("read", func() {
			f, err := os.Open(file)
			if err != nil {
				b.Fatal(err)
			}
			h, err = history.ReadJSONL(f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		})
		t7 := time.Now()
		runtime.GC()
		t8 := time.Now()
		phase("checkonly", func() {
			if res := checker.Check(h, checker.CheckOptions{}); !res.Passed() {
				b.Fatalf("generated history did not pass:\n%s", res.Text())
			}
		})
		t9 := time.Now()

		b.ReportMetric((c2 - c0).Seconds(), "e2e-cpu-s")
		b.ReportMetric((c1 - c0).Seconds(), "gen+write-cpu-s")
		b.ReportMetric((c2 - c1).Seconds(), "read+check-cpu-s")
		b.ReportMetric(t2.Sub(t0).Seconds(), "e2e-s")
		b.ReportMetric(t1.Sub(t0).Seconds(), "gen+write-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "read+check-s")
		b.ReportMetric(t4.Sub(t3).Seconds(), "generate-s")
		b.ReportMetric(t5.Sub(t4).Seconds(), "write-s")
		b.ReportMetric(t7.Sub(t6).Seconds(), "read-s")
		b.ReportMetric(t9.Sub(t8).Seconds(), "check-s")
	}
}

// phase runs f under a profiler label, so one profile of the whole run
// splits by phase: go tool pprof -tagfocus phase=read.
func phase(name string, f func()) {
	pprof.Do(context.Background(), pprof.Labels("phase", name), func(context.Context) { f() })
}
