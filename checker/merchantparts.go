package checker

import (
	"math"
	"sort"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

// merchantPartitions splits each merchant's credits and answered balance
// reads at quiescent points (no op spans the cut) where the state is known
// for sure: the running credit sum always is, and the base is once given or
// once fixed by a read that overlaps no credit. Stretches are checked apart,
// so a merchant with a million credits is many small checks, not one.
//
// Repeated credits of one payment are never cut apart, so one picture shows
// them together.
func merchantPartitions(h history.History, l *links, initial map[string]int64, f *facts) []*partition {
	dupCredit := f.dupCredit
	groupEnd := map[int]int64{} // credit -> the last call of its repeated group
	for _, g := range f.creditGroups {
		if len(g) > 1 {
			last := h[g[len(g)-1]].Call
			for _, i := range g {
				groupEnd[i] = last
			}
		}
	}
	byMerchant := map[string][]int{}
	var names []string
	for i := range h {
		op := &h[i]
		switch {
		case op.Op == history.OpCredit:
		case op.Op == history.OpBalance && op.Output != nil && op.Output.Balance != nil:
		default:
			continue
		}
		m := op.Input.Merchant
		if _, ok := byMerchant[m]; !ok {
			names = append(names, m)
		}
		byMerchant[m] = append(byMerchant[m], i)
	}
	sort.Strings(names)
	var parts []*partition
	for _, m := range names {
		idx := byMerchant[m]
		sort.SliceStable(idx, func(a, b int) bool { return h[idx[a]].Call < h[idx[b]].Call })
		base, known := initial[m]
		st := merchantState{BaseKnown: known, Base: base}
		start := 0
		maxRet, hold := int64(math.MinInt64), int64(math.MinInt64)
		stretches := 0
		for j := 0; j <= len(idx); j++ {
			if j == len(idx) || (j > start && maxRet < h[idx[j]].Call && hold < h[idx[j]].Call) {
				seg := idx[start:j]
				next, determined := afterStretch(h, seg, st)
				if j == len(idx) || determined {
					p := merchantStretch(h, m, len(parts), seg, st, dupCredit)
					p.stretch = stretches
					stretches++
					parts = append(parts, p)
					st, start = next, j
				}
			}
			if j < len(idx) {
				if r := retOf(&h[idx[j]]); r > maxRet {
					maxRet = r
				}
				if e, ok := groupEnd[idx[j]]; ok && e > hold {
					hold = e
				}
			}
		}
	}
	return parts
}

// afterStretch returns the state after a stretch, and whether it is the same
// in every linearization of it.
func afterStretch(h history.History, seg []int, st merchantState) (merchantState, bool) {
	next := st
	var reads []int
	for _, i := range seg {
		if h[i].Op == history.OpCredit {
			next.Sum += *h[i].Input.Amount
		} else {
			reads = append(reads, i)
		}
	}
	if st.BaseKnown || len(reads) == 0 {
		return next, true
	}
	for _, r := range reads {
		sum, clean := st.Sum, true
		for _, i := range seg {
			if h[i].Op != history.OpCredit {
				continue
			}
			switch {
			case retOf(&h[i]) < h[r].Call:
				sum += *h[i].Input.Amount
			case h[i].Call > retOf(&h[r]):
			default:
				clean = false
			}
		}
		if clean {
			next.BaseKnown, next.Base = true, *h[r].Output.Balance-sum
			return next, true
		}
	}
	return next, false
}

// merchantStretch is one stretch's partition. Only a stretch with a balance
// read goes to porcupine, so only its ops are built here; the others (most
// of them, one a credit when balances are given) get theirs when a
// violation keeps them for a picture (buildStretch, from check).
func merchantStretch(h history.History, m string, n int, seg []int, st merchantState, dup map[int]bool) *partition {
	p := &partition{Name: stretchName(m, n), Merchant: m, members: seg, model: &sharedMerchantModel, init: st}
	for _, i := range seg {
		if h[i].Op != history.OpCredit {
			p.hasRead = true
			buildStretch(h, p, dup)
			break
		}
	}
	return p
}

// stretchName names the n-th stretch, counted over every merchant's in
// name order (combine renames a piece's stretches by the whole file's count).
func stretchName(m string, n int) string {
	if n > 0 {
		return "merchant " + m + " stretch " + itoa(n+1)
	}
	return "merchant " + m
}

// buildStretch makes the porcupine ops of a merchant stretch.
func buildStretch(h history.History, p *partition, dup map[int]bool) {
	seg, st := p.members, p.init
	p.ops = make([]porcupine.Operation, 0, len(seg)+1)
	cl := newClients(len(seg) + 1)
	// One block for the stretch's inputs, not one allocation an op.
	ins := make([]merchantInput, len(seg)+1)
	ins[0] = merchantInput{Kind: opStart, Start: st, Index: -1}
	first := h[seg[0]].Call
	start := porcupine.Operation{ClientId: cl.id("(stretch start)"), Input: &ins[0], Call: first - 1, Return: first - 1}
	p.ops = append(p.ops, start)
	hasDup := false
	for k, i := range seg {
		op := &h[i]
		in := &ins[k+1]
		*in = merchantInput{Kind: op.Op, Index: i}
		if op.Op == history.OpCredit {
			in.Amount = *op.Input.Amount
		} else {
			in.Amount = *op.Output.Balance
		}
		o := porcupine.Operation{ClientId: cl.id(op.Process), Input: in, Call: op.Call, Return: retOf(op)}
		p.ops = append(p.ops, o)
		if dup[i] {
			hasDup = true
		}
	}
	if hasDup {
		p.deduped = append(p.deduped, start)
		for k, i := range seg {
			if !dup[i] {
				p.deduped = append(p.deduped, p.ops[k+1])
			}
		}
	}
	p.rows = cl.list()
}
