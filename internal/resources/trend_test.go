package resources

import (
	"strings"
	"testing"
	"time"
)

// A line with noise around it: the slope is the line's, where the first
// and last samples alone (a round in flight at the end) would say more.
func TestTrendFitsTheSlopeNotTheEnds(t *testing.T) {
	var ss []Sample
	noise := []int64{0, 3, -3, 0, 2, -2, 0, 0, 0, 0, 0, 9} // MiB; both ends high
	for m := range noise {
		ss = append(ss, Sample{Elapsed: time.Duration(m) * time.Minute, RSS: (40 + int64(m) + noise[m] + noise[len(noise)-1-m]) << 20,
			RSSAnon: int64(10<<20 + m*(1<<17)), FDs: 30, Heap: uint64(8<<20 + m*(1<<19)), Live: uint64(4<<20 + m*(1<<18)),
			Idle: uint64(2<<20 + m*(1<<16)), Runtime: 3 << 20, ChildRSS: 100 << 20, ChildFDs: 12})
	}
	tr := TrendAfter(ss, 0)
	if !tr.OK || tr.N != 12 || tr.From != 0 || tr.To != 11*time.Minute {
		t.Fatalf("trend %+v", tr)
	}
	// The noise is symmetric about the middle, so it leaves the slope of
	// the line under it: 1 MiB a minute, though the last sample is 9 MiB
	// above the line; the heap's 0.5 exactly.
	if got := tr.RSS / (1 << 20); got < 0.999 || got > 1.001 {
		t.Errorf("rss slope %.4f MiB/min, want 1", got)
	}
	if tr.Heap != 1<<19 || tr.Live != 1<<18 || tr.RSSAnon != 1<<17 || tr.Idle != 1<<16 || tr.Runtime != 0 || tr.FDs != 0 || tr.ChildRSS != 0 || tr.ChildFDs != 0 {
		t.Errorf("heap %.0f B/min (want %d), fds %.2f, child rss %.0f, child fds %.2f (want 0)", tr.Heap, 1<<19, tr.FDs, tr.ChildRSS, tr.ChildFDs)
	}
	if s := tr.String(); !strings.Contains(s, "rss +1.000 MiB (anonymous +0.125 MiB)") || !strings.Contains(s, "go heap +0.500 MiB (live +0.250 MiB, idle +0.062 MiB), go runtime +0.000 MiB") || !strings.Contains(s, "12 samples from 0s to 11m0s") {
		t.Errorf("trend line %q", s)
	}
}

func TestTrendNeedsThreeSamplesAfterTheWarmUp(t *testing.T) {
	ss := []Sample{{Elapsed: 0}, {Elapsed: time.Minute}, {Elapsed: 2 * time.Minute}, {Elapsed: 3 * time.Minute}}
	if tr := TrendAfter(ss, 2*time.Minute); tr.OK || tr.N != 2 {
		t.Fatalf("two samples after the warm-up: %+v, want not OK with N 2", tr)
	}
	if s := TrendAfter(ss, 2*time.Minute).String(); !strings.Contains(s, "too few") {
		t.Fatalf("line %q", s)
	}
	if tr := TrendAfter(ss, time.Minute); !tr.OK || tr.N != 3 || tr.RSS != 0 {
		t.Fatalf("three flat samples: %+v", tr)
	}
}

// RSSAnon is a part of RSS, read from the same status file.
func TestTakeReadsTheAnonymousPartOfRSS(t *testing.T) {
	got, err := parseStatusKB([]byte("VmRSS:\t  300 kB\nRssAnon:\t  120 kB\nRssFile:\t  180 kB\n"), "RssAnon")
	if err != nil || got != 120*1024 {
		t.Fatalf("RssAnon = %d, %v; want %d", got, err, 120*1024)
	}
	s := Take(0, nil)
	if s.RSSAnon <= 0 || s.RSSAnon > s.RSS || s.Live == 0 || s.Live > s.Heap {
		t.Fatalf("sample %+v: want 0 < rss_anon <= rss and 0 < live <= heap", s)
	}
}
