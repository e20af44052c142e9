package history

import (
	"bufio"
	"io"
	"math/rand"
)

// genWindow is how many ops GenerateJSONL shuffles together: about a tenth
// of a 1M-op history, so each window holds tens of thousands of intents of
// every client, and 10M ops need no more memory than 1M.
var genWindow = 1 << 17

// GenerateJSONL writes what Generate would return for o (the same ops) as
// JSON Lines to w, without holding the history: ops are shuffled within
// windows of genWindow ops, not across the file, which the format allows
// (line order carries no meaning). A window is written while the next one is
// made. The same options write the same bytes. It returns how many ops it
// wrote and the merchants' initial balances.
func GenerateJSONL(w io.Writer, o GenOptions) (int, map[string]int64, error) {
	g := newGenerator(o)
	// Its own source, so the ops themselves are exactly Generate's.
	shuffle := rand.New(rand.NewSource(g.o.Seed ^ 0x5eed))
	bw := bufio.NewWriterSize(w, 1<<20)
	full := make(chan History)
	free := make(chan History, 2)
	free <- make(History, 0, genWindow)
	free <- make(History, 0, genWindow)
	done := make(chan error, 1)
	go func() {
		var err error
		for h := range full {
			if err == nil {
				err = WriteJSONL(bw, h)
			}
			free <- h[:0]
		}
		if err == nil {
			err = bw.Flush()
		}
		done <- err
	}()
	n := 0
	window := <-free
	send := func() {
		shuffle.Shuffle(len(window), func(i, j int) { window[i], window[j] = window[j], window[i] })
		n += len(window)
		full <- window
		window = <-free
	}
	g.run(func(part History) {
		for len(part) > 0 {
			k := min(len(part), genWindow-len(window))
			window, part = append(window, part[:k]...), part[k:]
			if len(window) == genWindow {
				send()
			}
		}
	})
	if len(window) > 0 {
		send()
	}
	close(full)
	return n, g.initial, <-done
}
