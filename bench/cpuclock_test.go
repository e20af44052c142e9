package bench

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProcessCPUIsTheKernelsOwnFigure: the clock sampleCPU reads agrees with
// getrusage for this process to well under a /proc tick, and it counts
// work on other threads: a figure in 10 ms ticks could not.
func TestProcessCPUIsTheKernelsOwnFigure(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process CPU clock of another pid is read on Linux only")
	}
	self := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, ok := processCPU(os.Getpid())
	if !ok {
		t.Fatal("processCPU could not read this process's clock")
	}
	// Spin on another goroutine (another thread) for at least 30 ms of CPU.
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := self()
		for self()-start < 30*time.Millisecond {
		}
	}()
	<-done
	ru := self()
	after, _ := processCPU(os.Getpid())
	if d := after - before; d < 30*time.Millisecond {
		t.Fatalf("processCPU moved %v across 30 ms of spinning", d)
	}
	// getrusage came first, so the clock may be ahead by what ran between.
	if diff := after - ru; diff < -time.Millisecond || diff > 2*time.Millisecond {
		t.Fatalf("processCPU %v, getrusage %v: %v apart", after, ru, diff)
	}
	// pid_max is one past the largest pid the kernel hands out.
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	max, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{max, 1 << 30, 0, -1} {
		if _, ok := processCPU(pid); ok {
			t.Errorf("processCPU read a clock for pid %d, which cannot exist", pid)
		}
	}
}
