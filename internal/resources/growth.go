package resources

import (
	"fmt"
	"time"
)

// Growth compares the first sample at or after warm (the service and the
// harness have filled their pools and caches by then) with the last one.
type Growth struct {
	From, To Sample
	OK       bool // false: no sample after warm, or only one
}

// GrowthAfter is the growth from the first sample at or after warm to the last.
func GrowthAfter(ss []Sample, warm time.Duration) Growth {
	for i, s := range ss {
		if s.Elapsed >= warm && i < len(ss)-1 {
			return Growth{From: s, To: ss[len(ss)-1], OK: true}
		}
	}
	return Growth{}
}

// String says the growth in the units a person reads: MiB and counts.
func (g Growth) String() string {
	if !g.OK {
		return "growth: too few samples after the warm-up to tell"
	}
	mib := func(b int64) string { return fmt.Sprintf("%+.1f MiB", float64(b)/(1<<20)) }
	return fmt.Sprintf("growth from %s to %s: rss %s (%.1f -> %.1f MiB), fds %+d (%d -> %d), go heap %s (live %s), goroutines %+d; children (%d -> %d procs): rss %s, fds %+d",
		g.From.Elapsed.Round(time.Second), g.To.Elapsed.Round(time.Second),
		mib(g.To.RSS-g.From.RSS), float64(g.From.RSS)/(1<<20), float64(g.To.RSS)/(1<<20), g.To.FDs-g.From.FDs, g.From.FDs, g.To.FDs,
		mib(int64(g.To.Heap)-int64(g.From.Heap)), mib(int64(g.To.Live)-int64(g.From.Live)), g.To.Goroutines-g.From.Goroutines,
		g.From.ChildProcs, g.To.ChildProcs, mib(g.To.ChildRSS-g.From.ChildRSS), g.To.ChildFDs-g.From.ChildFDs)
}
