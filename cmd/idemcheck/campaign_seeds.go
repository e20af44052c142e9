package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
)

// runSeeds runs the shard's seeds, cf.parallel at a time, each writing its
// reports under cf.out; it returns the JSON paths of the seeds that ran, in
// seed order, or the exit code that stops the shard (a usage error or an
// unreachable target: every later seed would hit it too).
func runSeeds(ctx context.Context, seeds []uint64, cf campaignFlags, o conform.Options,
	runner func(context.Context, conform.Options) (int, *report.Report), stderr io.Writer) ([]string, int) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	ran := make([]string, len(seeds))
	stopCode := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(cf.parallel, len(seeds)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				so := o
				so.Seed = seeds[i]
				so.JSON = filepath.Join(cf.out, fmt.Sprintf("seed-%d.json", so.Seed))
				so.HTML = filepath.Join(cf.out, fmt.Sprintf("seed-%d", so.Seed))
				code, _ := runner(ctx, so)
				mu.Lock()
				fmt.Fprintf(stderr, "idemcheck run: campaign seed %d: exit %d\n", so.Seed, code)
				if code == conform.ExitUsage || code == conform.ExitUnreachable {
					if stopCode == 0 {
						stopCode = code
					}
					stop()
				} else if ctx.Err() == nil {
					ran[i] = so.JSON
				}
				mu.Unlock()
			}
		}()
	}
	for i := range seeds {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if stopCode != 0 {
		return nil, stopCode
	}
	var paths []string
	for _, p := range ran {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, 0
}
