package history

import (
	"runtime"
	"sync"
)

// inChunks calls f on [lo, hi) chunks covering [0, n), one chunk a core, and
// returns when all are done. The passes over a history are mostly waiting on
// memory (ops in file order are all over the heap), so cores overlap that.
// f must write only its own chunk's results.
func InChunks(n int, f func(k, lo, hi int)) {
	workers := ChunkCount(n)
	if workers == 1 {
		f(0, 0, n)
		return
	}
	size := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for k := range workers {
		lo, hi := min(k*size, n), min((k+1)*size, n)
		wg.Go(func() { f(k, lo, hi) })
	}
	wg.Wait()
}

// chunkCount is how many chunks inChunks makes of n: one below a size where
// starting goroutines costs more than it saves.
func ChunkCount(n int) int {
	if n < 1<<14 {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}
