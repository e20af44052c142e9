package checker

import "github.com/idemcheck/idemcheck/checker/history"

// intentIDs numbers the linked intents, so the passes that group ops by
// intent index slices instead of hashing a string per op into a map of their
// own (the intent strings of a read file are all over the heap).
type intentIDs struct {
	// id is each op's intent number, -1 for none.
	id []int32
	// names are the intents by number: the answers' intents in history
	// order, then the others (link). Nothing depends on that order.
	names []string
}

// group lists, by intent number, the ops keep selects, in history order.
// The lists share one array and are capped, so an append to one cannot
// write into the next.
func (n *intentIDs) group(h history.History, keep func(op *history.Op) bool) [][]int {
	start := make([]int, len(n.names)+1)
	for i, id := range n.id {
		if id >= 0 && keep(&h[i]) {
			start[id+1]++
		}
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	flat := make([]int, start[len(n.names)])
	at := append([]int(nil), start[:len(n.names)]...)
	for i, id := range n.id {
		if id >= 0 && keep(&h[i]) {
			flat[at[id]] = i
			at[id]++
		}
	}
	out := make([][]int, len(n.names))
	for id := range out {
		if lo, hi := start[id], start[id+1]; hi > lo {
			out[id] = flat[lo:hi:hi]
		}
	}
	return out
}
