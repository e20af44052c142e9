package resources

import (
	"fmt"
	"time"
)

// Trend is the least-squares slope of each measure over the samples after
// the warm-up, per minute. A comparison of the first and last samples
// (Growth) swings with whatever traffic was in flight at either end; a
// slope over every sample is what says whether a long run grows.
type Trend struct {
	N        int           // samples fitted
	From, To time.Duration // the first and last fitted sample's elapsed time
	// Per minute: bytes for RSS, RSSAnon, Heap, Live and ChildRSS, counts
	// for FDs.
	RSS, RSSAnon, Heap, Live, Idle, Runtime, FDs, ChildRSS, ChildFDs float64
	OK                                                               bool // false: fewer than 3 samples after the warm-up
}

// TrendAfter fits the samples at or after warm.
func TrendAfter(ss []Sample, warm time.Duration) Trend {
	var fit []Sample
	for _, s := range ss {
		if s.Elapsed >= warm {
			fit = append(fit, s)
		}
	}
	if len(fit) < 3 || fit[0].Elapsed == fit[len(fit)-1].Elapsed {
		return Trend{N: len(fit)}
	}
	slope := func(y func(Sample) float64) float64 {
		var mx, my float64
		for _, s := range fit {
			mx += s.Elapsed.Minutes()
			my += y(s)
		}
		n := float64(len(fit))
		mx, my = mx/n, my/n
		var sxy, sxx float64
		for _, s := range fit {
			dx := s.Elapsed.Minutes() - mx
			sxy += dx * (y(s) - my)
			sxx += dx * dx
		}
		return sxy / sxx
	}
	return Trend{N: len(fit), From: fit[0].Elapsed, To: fit[len(fit)-1].Elapsed, OK: true,
		RSS:      slope(func(s Sample) float64 { return float64(s.RSS) }),
		RSSAnon:  slope(func(s Sample) float64 { return float64(s.RSSAnon) }),
		Heap:     slope(func(s Sample) float64 { return float64(s.Heap) }),
		Live:     slope(func(s Sample) float64 { return float64(s.Live) }),
		Idle:     slope(func(s Sample) float64 { return float64(s.Idle) }),
		Runtime:  slope(func(s Sample) float64 { return float64(s.Runtime) }),
		FDs:      slope(func(s Sample) float64 { return float64(s.FDs) }),
		ChildRSS: slope(func(s Sample) float64 { return float64(s.ChildRSS) }),
		ChildFDs: slope(func(s Sample) float64 { return float64(s.ChildFDs) }),
	}
}

// String says the slopes in the units a person reads.
func (t Trend) String() string {
	if !t.OK {
		return fmt.Sprintf("trend: %d samples after the warm-up, too few to fit (3 needed)", t.N)
	}
	mib := func(b float64) string { return fmt.Sprintf("%+.3f MiB", b/(1<<20)) }
	return fmt.Sprintf("trend over %d samples from %s to %s (least squares, per minute): rss %s (anonymous %s), go heap %s (live %s, idle %s), go runtime %s, fds %+.2f; children: rss %s, fds %+.2f",
		t.N, t.From.Round(time.Second), t.To.Round(time.Second), mib(t.RSS), mib(t.RSSAnon), mib(t.Heap), mib(t.Live), mib(t.Idle), mib(t.Runtime), t.FDs, mib(t.ChildRSS), t.ChildFDs)
}
