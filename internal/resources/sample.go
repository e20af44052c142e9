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
}

// Header is the CSV's first line; Sample.CSV writes the others.
const Header = "elapsed_s,rss_bytes,fds,go_heap_bytes,goroutines,child_procs,child_rss_bytes,child_fds,go_live_bytes,rss_anon_bytes"

// CSV is the sample as one line of Header's columns.
func (s Sample) CSV() string {
	return fmt.Sprintf("%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d", s.Elapsed.Seconds(), s.RSS, s.FDs, s.Heap, s.Goroutines, s.ChildProcs, s.ChildRSS, s.ChildFDs, s.Live, s.RSSAnon)
}

// Take reads this process and the given children now. The collection first
// makes Heap what is live, not what the collector has yet to free.
func Take(elapsed time.Duration, children []int) Sample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := Sample{Elapsed: elapsed, Heap: m.HeapInuse, Live: m.HeapAlloc, Goroutines: runtime.NumGoroutine()}
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
	if len(lines) == 0 || lines[0] != Header {
		return nil, fmt.Errorf("resources: line 1: want the header %q", Header)
	}
	var out []Sample
	for i, l := range lines[1:] {
		var s Sample
		var secs float64
		n, err := fmt.Sscanf(l, "%g,%d,%d,%d,%d,%d,%d,%d,%d,%d", &secs, &s.RSS, &s.FDs, &s.Heap, &s.Goroutines, &s.ChildProcs, &s.ChildRSS, &s.ChildFDs, &s.Live, &s.RSSAnon)
		if err != nil || n != 10 {
			return nil, fmt.Errorf("resources: line %d: %q: want %d numbers (%v)", i+2, l, 10, err)
		}
		s.Elapsed = time.Duration(secs * float64(time.Second))
		out = append(out, s)
	}
	return out, nil
}
