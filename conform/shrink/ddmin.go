// Package shrink reduces a failing chaos schedule to a small one that
// still fails the same way: delta debugging over its intents, then each
// remaining intent made plainer (one copy, no shape, its own key, no delay,
// no fault) where the failure survives it.
package shrink

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/checks"
)

// Test says whether a candidate schedule still fails as the original did.
type Test func(ctx context.Context, plan []checks.Planned) (bool, error)

// ddmin is Zeller's delta debugging over a schedule's intents: it returns
// a subset that still fails and from which no single chunk at the final
// granularity can be removed (1-minimal when it ran to the end). It stops
// early, with the smallest failing subset so far, when budget() says so.
func ddmin(ctx context.Context, plan []checks.Planned, test Test, budget func() bool) ([]checks.Planned, error) {
	c := plan
	n := 2
	for len(c) >= 2 && budget() && ctx.Err() == nil {
		chunks := split(c, n)
		reduced := false
		// A chunk alone first: a bug of two intents is found in few steps.
		for _, ch := range chunks {
			if !budget() {
				break
			}
			ok, err := test(ctx, checks.Renumber(ch))
			if err != nil {
				return c, err
			}
			if ok {
				c, n, reduced = ch, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				if !budget() {
					break
				}
				comp := complement(chunks, i)
				ok, err := test(ctx, checks.Renumber(comp))
				if err != nil {
					return c, err
				}
				if ok {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return c, nil
}

// split cuts c into n chunks of nearly equal length, in order.
func split(c []checks.Planned, n int) [][]checks.Planned {
	var out [][]checks.Planned
	start := 0
	for i := range n {
		end := start + (len(c)-start)/(n-i)
		if end > start {
			out = append(out, c[start:end])
		}
		start = end
	}
	return out
}

// complement is every chunk but the i-th, in order.
func complement(chunks [][]checks.Planned, i int) []checks.Planned {
	var out []checks.Planned
	for j, ch := range chunks {
		if j != i {
			out = append(out, ch...)
		}
	}
	return out
}

// simplify makes each intent plainer, one change at a time, keeping each
// change under which the schedule still fails.
func simplify(ctx context.Context, plan []checks.Planned, test Test, budget func() bool) ([]checks.Planned, error) {
	c := checks.Renumber(plan)
	steps := []func(p *checks.Planned) bool{
		func(p *checks.Planned) bool { ch := p.Copies > 1; p.Copies = 1; return ch },
		func(p *checks.Planned) bool {
			ch := p.Shape != "" && p.Shape != checks.ShapePlain
			p.Shape, p.Stretch = "", 0
			return ch
		},
		func(p *checks.Planned) bool { ch := p.KeyOf != 0; p.KeyOf = 0; return ch },
		func(p *checks.Planned) bool { ch := p.Delay != 0; p.Delay = 0; return ch },
		func(p *checks.Planned) bool { ch := p.Fault != checks.NoFault; p.Fault = checks.NoFault; return ch },
	}
	for i := range c {
		for _, step := range steps {
			if !budget() || ctx.Err() != nil {
				return c, nil
			}
			cand := append([]checks.Planned(nil), c...)
			if !step(&cand[i]) {
				continue
			}
			ok, err := test(ctx, cand)
			if err != nil {
				return c, err
			}
			if ok {
				c = cand
			}
		}
	}
	return c, nil
}
