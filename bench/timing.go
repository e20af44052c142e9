package bench

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// timing is one timed batch of calls.
type timing struct {
	n       int
	elapsed time.Duration
	lat     []time.Duration // sorted
}

func (t *timing) rate() float64 { return float64(t.n) / t.elapsed.Seconds() }

// pct is the p-th percentile latency (nearest rank).
func (t *timing) pct(p int) time.Duration {
	if len(t.lat) == 0 {
		return 0
	}
	i := (len(t.lat)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return t.lat[min(i, len(t.lat))-1]
}

// runWith runs f(0..n-1) on workers goroutines; the first error stops
// every worker.
func runWith(workers, n int, f func(i int) error) (*timing, error) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var failed atomic.Bool
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t := time.Now()
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if firstErr != nil {
		return nil, firstErr
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return &timing{n: n, elapsed: el, lat: lat}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
