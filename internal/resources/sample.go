// Package resources samples what a long run holds (resident memory, open
// descriptors, the Go heap after a collection, goroutines) for itself and
// the processes it started, so a soak shows growth as numbers, not claims.
package resources

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Sample is one reading. Children are summed over the processes whose pids
// the sampler was given that were still alive; ChildProcs says how many.
type Sample struct {
	Elapsed    time.Duration
	RSS        int64 // bytes
	FDs        int
	Heap       uint64 // HeapInuse after runtime.GC, bytes: the live objects' spans, whole
	Goroutines int
	ChildProcs int
	ChildRSS   int64
	ChildFDs   int
	// Live is HeapAlloc after runtime.GC: the live objects' bytes alone.
	// Heap less Live is what the spans hold that is free (fragmentation):
	// a flat Live under a growing Heap is the allocator, not a leak.
	Live uint64
	// RSSAnon is the part of RSS no file backs (RssAnon: the heap, stacks,
	// the runtime's own); the rest is the binary's pages, mapped in as
	// code first runs, which a long run's rarer paths keep adding to.
	RSSAnon int64
	// Idle is the free heap pages the runtime keeps resident (HeapIdle
	// less HeapReleased): RSS a collection freed and the scavenger has
	// not yet given back.
	Idle uint64
	// Runtime is the runtime's own memory outside the heap: stacks, span
	// and cache structures, profiling buckets, the collector's metadata
	// and the rest (StackInuse, MSpanInuse, MCacheInuse, BuckHashSys,
	// GCSys, OtherSys). With Heap and Idle it accounts for the RSS that
	// is Go's; what RSSAnon holds beyond the three is not the Go runtime's.
	Runtime uint64
}

// Header is the CSV's first line; Sample.CSV writes the others.
const Header = "elapsed_s,rss_bytes,fds,go_heap_bytes,goroutines,child_procs,child_rss_bytes,child_fds,go_live_bytes,rss_anon_bytes,go_idle_bytes,go_runtime_bytes"

// header10 is Header before go_idle_bytes and go_runtime_bytes: earlier
// soaks' files, read back with those two zero.
const header10 = "elapsed_s,rss_bytes,fds,go_heap_bytes,goroutines,child_procs,child_rss_bytes,child_fds,go_live_bytes,rss_anon_bytes"

// CSV is the sample as one line of Header's columns.
func (s Sample) CSV() string {
	return fmt.Sprintf("%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", s.Elapsed.Seconds(), s.RSS, s.FDs, s.Heap, s.Goroutines, s.ChildProcs, s.ChildRSS, s.ChildFDs, s.Live, s.RSSAnon, s.Idle, s.Runtime)
}

// Take reads this process and the given children now. The collection first
// makes Heap what is live, not what the collector has yet to free.
func Take(elapsed time.Duration, children []int) Sample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := Sample{Elapsed: elapsed, Heap: m.HeapInuse, Live: m.HeapAlloc, Goroutines: runtime.NumGoroutine(),
		Idle: m.HeapIdle - m.HeapReleased, Runtime: m.StackInuse + m.MSpanInuse + m.MCacheInuse + m.BuckHashSys + m.GCSys + m.OtherSys}
	s.RSS, _ = rss("self")
	s.RSSAnon, _ = statusBytes("self", "RssAnon")
	s.FDs, _ = fds("self")
	for _, pid := range children {
		p := strconv.Itoa(pid)
		r, err := rss(p)
		if err != nil {
			continue // gone (killed by a fault and restarted under a new pid)
		}
		n, _ := fds(p)
		s.ChildProcs++
		s.ChildRSS += r
		s.ChildFDs += n
	}
	return s
}

// rss reads VmRSS from /proc/PID/status, in bytes.
func rss(pid string) (int64, error) { return statusBytes(pid, "VmRSS") }

// statusBytes reads one "N kB" field of /proc/PID/status, in bytes.
func statusBytes(pid, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	return parseStatusKB(b, field)
}

func parseRSS(status []byte) (int64, error) { return parseStatusKB(status, "VmRSS") }

func parseStatusKB(status []byte, field string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, field+":") {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, field+":"))
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s line %q: want \"N kB\"", field, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s line %q: %v", field, line, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("no %s line (a kernel thread, or not Linux)", field)
}

// fds counts the entries of /proc/PID/fd.
func fds(pid string) (int, error) {
	es, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		return 0, err
	}
	return len(es), nil
}

// ParseCSV reads what a Sampler wrote back (a soak's file, judged after).
func ParseCSV(b []byte) ([]Sample, error) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	cols := 12
	switch {
	case len(lines) > 0 && lines[0] == header10:
		cols = 10
	case len(lines) == 0 || lines[0] != Header:
		return nil, fmt.Errorf("resources: line 1: want the header %q", Header)
	}
	var out []Sample
	for i, l := range lines[1:] {
		var s Sample
		var secs float64
		ptrs := []any{&secs, &s.RSS, &s.FDs, &s.Heap, &s.Goroutines, &s.ChildProcs, &s.ChildRSS, &s.ChildFDs, &s.Live, &s.RSSAnon, &s.Idle, &s.Runtime}
		format := "%g" + strings.Repeat(",%d", cols-1)
		n, err := fmt.Sscanf(l, format, ptrs[:cols]...)
		if err != nil || n != cols || strings.Count(l, ",") != cols-1 {
			return nil, fmt.Errorf("resources: line %d: %q: want %d numbers (%v)", i+2, l, cols, err)
		}
		s.Elapsed = time.Duration(secs * float64(time.Second))
		out = append(out, s)
	}
	return out, nil
}
