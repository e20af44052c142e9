package scenario

import (
	"context"
	"slices"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
)

// attrCache is the last Attribution and what it was made from. Judging a
// round asks for the run's attribution once per intent; remaking it each
// time made the judge's cost grow with the run's size squared (a soak's
// rounds judged for minutes).
type attrCache struct {
	mu sync.Mutex
	ok bool
	in attrInputs
	a  Attribution
	// made and open are what the cached one was made with and which of
	// its charges a later exchange could still attribute (changedBy).
	made *attributor
	open openCharges
	// view is the round's view it was made from; nil: the whole run.
	view *viewSnap
	// stats counts the asks since the last forgetJudged, by how they were
	// answered: a round's judge must remake the attribution about once.
	stats attrStats
}

// attrStats counts attribute's answers: from the cache, or remade because
// nothing was cached or because of the input that changed (the first of
// charges, exchanges, orders that differs from the cached one's).
type attrStats struct {
	hits, cold, charges, exchanges, orders int
	// grown counts the hits on more exchanges than the cached one was
	// made from, none of which could change it.
	grown int
	// whole counts the remakes that read the whole run because the
	// round's view could not stand for it (attribute_view.go).
	whole int
}

// missed counts a remake made for in.
func (c *attrCache) missed(in attrInputs) {
	switch {
	case !c.ok:
		c.stats.cold++
	case in.charges != c.in.charges || in.last != c.in.last:
		c.stats.charges++
	case in.exchanges > c.in.exchanges:
		c.stats.exchanges++
	default:
		c.stats.orders++
	}
}

// attrInputs says what an Attribution was made from. The PSP's charges
// only grow and a logged charge never changes, so their count and the last
// one tell a new log from an old one; the front's log only grows; track
// bumps the orders' generation at every change it makes to them.
type attrInputs struct {
	charges   int
	last      chargeMark
	exchanges int
	orders    uint64
}

type chargeMark struct {
	call     int64
	pspKey   string
	chargeID string
}

func markOf(charges []history.Op) chargeMark {
	if len(charges) == 0 {
		return chargeMark{}
	}
	c := charges[len(charges)-1]
	m := chargeMark{call: c.Call, pspKey: c.Input.PSPKey}
	if c.Output != nil {
		m.chargeID = c.Output.ChargeID
	}
	return m
}

// ChargeLog is Effects whose charges are only ever appended to and can be
// counted without being read: attribute then knows its cached answer still
// holds without copying the run's charges for every intent it judges. ok is
// false when the count is not known that cheaply.
type ChargeLog interface {
	ChargeCount(ctx context.Context) (n int, ok bool)
}

// attribute reads the PSP's charges and attributes them to the run's
// orders. The Attribution is shared with every caller until an input
// changes: read it, never change it (ChargesFor hands out copies).
func (e *Env) attribute(ctx context.Context) (Attribution, bool) {
	if e.Effects == nil {
		return Attribution{}, false
	}
	exchanges, gen := -1, e.ordersGeneration()
	if e.Front != nil {
		exchanges = e.Front.Len()
	}
	c := &e.attr
	n, known := 0, false
	if log, ok := e.Effects.(ChargeLog); ok {
		if n, known = log.ChargeCount(ctx); known {
			c.mu.Lock()
			a, hit := c.cached(e, attrInputs{charges: n, exchanges: exchanges, orders: gen}, false)
			c.mu.Unlock()
			if hit {
				return a, true
			}
		}
	}
	// Read outside the lock: a PSP reached by URL answers slowly, and the
	// judges of one round ask at once. After an absorb, the round's view
	// only (attribute_view.go).
	rd, ok := e.readCharges(ctx, known)
	if !ok {
		return Attribution{}, false
	}
	in := attrInputs{charges: len(rd.all), last: markOf(rd.all), exchanges: exchanges, orders: gen}
	if rd.view != nil {
		// Counted before the read: a cache that says fewer charges than
		// it saw is only remade sooner.
		in.charges = n
	}
	// Held while attributing: one judge making it is enough for all.
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, hit := c.cached(e, in, true); hit {
		return a, true
	}
	c.missed(in)
	if rd.unread {
		c.stats.whole++
	}
	orders, gen, resent, err := e.ordersAtResent()
	in.orders = gen
	t := newAttributor(orders)
	var a Attribution
	var open openCharges
	conflict := rd.view != nil && resent
	var exErr error
	if !conflict {
		a, open, in.exchanges, conflict, exErr = t.attributeRead(e, rd)
	}
	if conflict {
		// The view cannot stand for the whole run here: the whole run.
		c.stats.whole++
		if rd, ok = e.readWhole(ctx); !ok {
			return Attribution{}, false
		}
		in.last = markOf(rd.all)
		a, open, in.exchanges, _, exErr = t.attributeRead(e, rd)
	}
	if err != nil || exErr != nil {
		// Not cached: the next ask reads the orders and the exchanges
		// again, so the read error takeReadError finds Errors every check
		// judged on this answer, not only the first to take it. (A lost
		// exchange keeps its place, so no count would tell.)
		return a, true
	}
	c.a, c.in, c.ok, c.made, c.open, c.view = a, in, true, t, open, rd.view
	return c.a, true
}

// cached is the cached Attribution when it holds for in: the same charges
// (their count, and the last one when marked, as a PSP reached by URL
// cannot count them without reading them), the same orders' generation,
// and the exchanges it was made from or more that cannot change it
// (changedBy), only those read. Called with c.mu held.
func (c *attrCache) cached(e *Env, in attrInputs, marked bool) (Attribution, bool) {
	if !c.ok || in.charges != c.in.charges || (marked && in.last != c.in.last) || in.orders != c.in.orders {
		return Attribution{}, false
	}
	if in.exchanges > c.in.exchanges {
		later, err := e.Front.ExchangesSince(c.in.exchanges)
		if err != nil || c.made.changedBy(c.open, later) || c.view.reopensAny(c.made, later) {
			// Remade from the whole log: an exchange that could not be
			// read is ReadError's, the check Errored.
			return Attribution{}, false
		}
		c.in.exchanges += len(later)
		c.stats.grown++
	}
	c.stats.hits++
	return c.a, true
}

// forgetJudged lets go of what judging a round needed and no later round
// does: the cached Attribution (a copy of every charge of the run, which
// the next round's judge remakes anyway, its charges being new), the
// refunds read (refunds_cache.go) and which order each of the round's
// intents sent. Called when a long check's round was judged and absorbed.
func (e *Env) forgetJudged() {
	c := &e.attr
	c.mu.Lock()
	c.ok, c.in, c.a, c.made, c.open, c.view, c.stats = false, attrInputs{}, Attribution{}, nil, openCharges{}, nil, attrStats{}
	c.mu.Unlock()
	e.forgetRefunds()
	e.forgetIntents()
}

// ChargesFor returns the PSP charges attributed to the intent's order in a
// slice of its own: a caller may append to it or change its ops' fields
// (not the maps and outputs they point to, which the cache shares). It returns ok=false when the effects are a
// plain counter.
func (e *Env) ChargesFor(ctx context.Context, in Intent) ([]history.Op, bool) {
	attribute := e.attribute
	if e.viewSnap().on && !e.current(in.Meaning.OrderID) {
		// An earlier round's order: the view no longer holds its charges.
		attribute = e.attributeAll
	}
	a, ok := attribute(ctx)
	if !ok {
		return nil, false
	}
	return slices.Clone(a.By[in.Meaning.OrderID]), true
}
