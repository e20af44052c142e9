package history

import "math"

// genReads answers the generator's balance reads without keeping every
// credit: a read answers its merchant's base plus every credit linearized at
// or before its own point, and it can be answered once no credit still to be
// made can come before it. Clients drift apart, so that is some intents
// later, never the whole history later.
type genReads struct {
	base    []int64 // per merchant, the initial balance
	settled []int64 // per merchant, credits every read still open counts
	recent  []genCredit
	pending []genRead
}

type genCredit struct {
	m           int
	lin, amount int64
}

type genRead struct {
	op  int // index in generator.h
	m   int
	lin int64
}

func (r *genReads) credit(m int, lin, amount int64) {
	r.recent = append(r.recent, genCredit{m: m, lin: lin, amount: amount})
}

func (r *genReads) read(op, m int, lin int64) {
	r.pending = append(r.pending, genRead{op: op, m: m, lin: lin})
}

// answer writes the balance of every open read whose point is before
// before, which no credit still to come can precede.
func (r *genReads) answer(h History, sl *slab, before int64) {
	if r.settled == nil {
		r.settled = make([]int64, len(r.base))
	}
	open := r.pending[:0]
	for _, rd := range r.pending {
		if rd.lin >= before {
			open = append(open, rd)
			continue
		}
		sum := r.base[rd.m] + r.settled[rd.m]
		for _, c := range r.recent {
			if c.m == rd.m && c.lin <= rd.lin {
				sum += c.amount
			}
		}
		h[rd.op].Output = sl.output(&Output{Balance: sl.int64(sum)})
	}
	r.pending = open
}

// fold adds to settled the credits at or before every open read and every
// read still to come (none before next), so recent stays a few hundred.
func (r *genReads) fold(next int64) {
	upTo := next
	for _, rd := range r.pending {
		upTo = min(upTo, rd.lin)
	}
	keep := r.recent[:0]
	for _, c := range r.recent {
		if c.lin <= upTo {
			r.settled[c.m] += c.amount
		} else {
			keep = append(keep, c)
		}
	}
	r.recent = keep
}

// oldest is the index of the first op still waiting for its answer, n if none.
func (r *genReads) oldest(n int) int {
	for _, rd := range r.pending {
		n = min(n, rd.op)
	}
	return n
}

// shift renumbers the open reads once the first cut ops were handed on.
func (r *genReads) shift(cut int) {
	for i := range r.pending {
		r.pending[i].op -= cut
	}
}

// genEmitAt is how many finished ops the generator gathers before handing
// them on.
const genEmitAt = 4096

// settle answers the reads it can and hands on the ops before the oldest
// read still open; final answers them all (no credit is left to come).
func (g *generator) settle(emit func(History), final bool) {
	first := int64(math.MaxInt64)
	for _, s := range g.start {
		first = min(first, s)
	}
	// A credit still to come is at s+30 or later, a read at s+25 or later,
	// s being its client's next call.
	before := first + 30
	if final {
		before = math.MaxInt64
	}
	g.reads.answer(g.h, &g.sl, before)
	g.reads.fold(first + 25)
	cut := g.reads.oldest(len(g.h))
	if cut < genEmitAt && !final {
		return
	}
	emit(g.h[:cut])
	n := copy(g.h, g.h[cut:])
	g.h = g.h[:n]
	g.reads.shift(cut)
}
