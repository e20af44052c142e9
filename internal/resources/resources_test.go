package resources

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseRSS(t *testing.T) {
	got, err := parseRSS([]byte("Name:\tx\nVmPeak:\t  9 kB\nVmRSS:\t    1234 kB\nThreads:\t3\n"))
	if err != nil || got != 1234*1024 {
		t.Fatalf("parseRSS = %d, %v; want %d", got, err, 1234*1024)
	}
	if _, err := parseRSS([]byte("Name:\tkthreadd\n")); err == nil {
		t.Fatal("a status without VmRSS parsed")
	}
	if _, err := parseRSS([]byte("VmRSS:\t12 MB\n")); err == nil || !strings.Contains(err.Error(), "VmRSS line") {
		t.Fatalf("a VmRSS in MB: err %v, want one naming the line", err)
	}
}

// TestTakeSeesAnOpenedFileAndAChild holds the sample to what it claims to
// count: one more open file is one more descriptor, and a child started
// here is counted with its own memory.
func TestTakeSeesAnOpenedFileAndAChild(t *testing.T) {
	before := Take(0, nil)
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	after := Take(0, nil)
	f.Close()
	if after.FDs != before.FDs+1 {
		t.Fatalf("fds %d -> %d with one file opened, want +1", before.FDs, after.FDs)
	}
	if before.RSS <= 0 || before.Heap == 0 || before.Goroutines < 1 {
		t.Fatalf("sample %+v: rss, heap and goroutines must be read", before)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	s := Take(0, []int{cmd.Process.Pid, 1 << 30})
	if s.ChildProcs != 1 || s.ChildRSS <= 0 || s.ChildFDs < 1 {
		t.Fatalf("child sample %+v: want 1 live child (the absent pid skipped) with its rss and fds", s)
	}
}

func TestSamplerWritesCSVAndStops(t *testing.T) {
	var buf bytes.Buffer
	s := Start(&buf, time.Hour, nil)
	ss, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// The first sample at Start and the last at Stop; the hourly tick never came.
	if len(ss) != 2 || len(lines) != 3 || lines[0] != Header {
		t.Fatalf("%d samples, lines %q", len(ss), lines)
	}
	if got := strings.Count(lines[1], ","); got != strings.Count(Header, ",") {
		t.Fatalf("line %q has %d commas, the header %d", lines[1], got, strings.Count(Header, ","))
	}
}

func TestGrowthAfterWarmUp(t *testing.T) {
	ss := []Sample{
		{Elapsed: 0, RSS: 10 << 20, FDs: 10},
		{Elapsed: time.Minute, RSS: 50 << 20, FDs: 30},
		{Elapsed: 2 * time.Minute, RSS: 51 << 20, FDs: 30},
		{Elapsed: 3 * time.Minute, RSS: 52 << 20, FDs: 29},
	}
	g := GrowthAfter(ss, time.Minute)
	if !g.OK || g.From.Elapsed != time.Minute || g.To.Elapsed != 3*time.Minute {
		t.Fatalf("growth %+v", g)
	}
	if s := g.String(); !strings.Contains(s, "rss +2.0 MiB") || !strings.Contains(s, "fds -1 (30 -> 29)") {
		t.Fatalf("growth line %q", s)
	}
	if g := GrowthAfter(ss, 3*time.Minute); g.OK {
		t.Fatalf("only the last sample after the warm-up: %+v, want not OK", g)
	}
}

func TestParseCSVReadsWhatTheSamplerWrote(t *testing.T) {
	want := Sample{Elapsed: 60 * time.Second, RSS: 1 << 20, FDs: 12, Heap: 3 << 20, Goroutines: 9, ChildProcs: 1, ChildRSS: 2 << 20, ChildFDs: 7, Live: 5 << 19, RSSAnon: 3 << 19,
		Idle: 7 << 18, Runtime: 9 << 17}
	got, err := ParseCSV([]byte(Header + "\n" + want.CSV() + "\n"))
	if err != nil || len(got) != 1 || got[0] != want {
		t.Fatalf("ParseCSV = %+v, %v; want [%+v]", got, err, want)
	}
	// An earlier soak's file, before go_idle_bytes and go_runtime_bytes:
	// read with both zero; a line of the wrong width for its header is not.
	old := want
	old.Idle, old.Runtime = 0, 0
	line := want.CSV()[:strings.LastIndex(want.CSV()[:strings.LastIndex(want.CSV(), ",")], ",")]
	if got, err := ParseCSV([]byte(header10 + "\n" + line + "\n")); err != nil || len(got) != 1 || got[0] != old {
		t.Fatalf("an old file: %+v, %v; want [%+v]", got, err, old)
	}
	if _, err := ParseCSV([]byte(header10 + "\n" + want.CSV() + "\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a 12-number line under the old header: err %v, want one naming line 2", err)
	}
	if _, err := ParseCSV([]byte(Header + "\n1,2,3\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a short line: err %v, want one naming line 2", err)
	}
}
