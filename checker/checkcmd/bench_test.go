package checkcmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// BenchmarkCheckFile1M is the end-to-end figure of `idemcheck check` on a
// generated 1M-op file (seed 1; `idemcheck gen --ops 1000000 --seed 1`
// writes the same file), next to Check alone on the same history, with the
// ratio and the peak resident memory of the end-to-end run. Run it by hand:
//
//	go test -run '^$' -bench CheckFile1M -benchtime 1x ./checker/checkcmd/
func BenchmarkCheckFile1M(b *testing.B) {
	file := filepath.Join(b.TempDir(), "1m.jsonl")
	if code := RunGen([]string{"--ops", "1000000", "--seed", "1", "--out", file}, io.Discard, os.Stderr); code != ExitOK {
		b.Fatalf("gen: exit %d", code)
	}
	for i := 0; i < b.N; i++ {
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		start := time.Now()
		if code := Run([]string{file}, io.Discard, os.Stderr); code != ExitOK {
			b.Fatalf("idemcheck check: exit %d", code)
		}
		e2e := time.Since(start)
		peak := peakRSS()

		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		h, err := history.ReadJSONL(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		start = time.Now()
		res := checker.Check(h, checker.CheckOptions{})
		only := time.Since(start)
		if !res.Passed() {
			b.Fatalf("generated history did not pass:\n%s", res.Text())
		}
		ratio := e2e.Seconds() / only.Seconds()
		fmt.Printf("idemcheck check, %d ops on %d cores: end to end (read + check) %.2f s, check only %.2f s, ratio %.2f, peak RSS %d MB\n",
			len(h), runtime.GOMAXPROCS(0), e2e.Seconds(), only.Seconds(), ratio, peak>>20)
		b.ReportMetric(e2e.Seconds(), "e2e-s")
		b.ReportMetric(only.Seconds(), "check-s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(float64(peak>>20), "peak-MB")
	}
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident memory (Linux; elsewhere peakRSS reports 0).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
