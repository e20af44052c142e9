package scenario

import (
	"context"
	"slices"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// A soak judges its rounds one after another over one deployment, and each
// round's judge asked for the attribution of the whole run: every charge,
// exchange and order since the start, read back from disk and held at
// once. The judge of round 20 held five times what round 1's did, and the
// heap's goal, and the RSS with it, followed that peak up, hour after hour.
//
// After a round is absorbed, its judge asks only about its own orders.
// Which of the PSP's charges can go to them is known without the earlier
// rounds' charges and exchanges: a charge given to an earlier order by its
// metadata or by a request keeps it (metadata goes first, and of a
// charge's requests the first logged wins, and the earlier round's are
// logged first), and one given by its amount can only lose it, to no
// order, when a later order sends the same amount. So the round's view is
// the charges logged since the last absorb, the exchanges logged since
// then, and the earlier charges no order explained (carried). Every order
// of the run still ranks the ids and counts the amounts, as the whole
// attribution does.
//
// What the view cannot see, it detects, and then attributes the whole run
// as before: an exchange under the key of an earlier charge given by its
// amount, or naming it, whose request names an order (it could take that
// charge); a charge of the view under a key an earlier request naming an
// order was made with; an order of the round that an earlier round sent
// too; and when the view's charges cannot be read, the whole run's are
// (the read error Errors the check). What it assumes is causality: a
// text written before an order was sent (a charge's metadata, a request)
// does not hold that order's id.
// The final recount attributes the whole run whatever the view said.

// ChargeTail is Effects that can read only the charges logged from a
// position of the PSP's log on, and say the log's length when read (the
// position to ask from next). ok is false when this one cannot.
type ChargeTail interface {
	ChargesFrom(ctx context.Context, pos int) (ops []history.Op, next int, ok bool, err error)
}

// viewSnap is what a round's attribution reads from. Once published it is
// never changed: a new one replaces it.
type viewSnap struct {
	on bool
	// pos is the PSP's log position the view's charges start at, ex the
	// front's exchange its exchanges start at.
	pos, ex int
	// carried are the earlier charges no order explained when the view
	// last moved.
	carried []history.Op
	// goneKeys and goneIDs are the keys and charge ids of the earlier
	// charges given to an order by their amount: a later request could
	// still take them.
	goneKeys, goneIDs refSet
	// named are the keys of the earlier exchanges whose request named an
	// order: a later charge under one may be that request's.
	named refSet
}

// roundView is the run's view, moved at each absorb.
type roundView struct {
	mu   sync.Mutex
	snap viewSnap
}

func (e *Env) viewSnap() viewSnap {
	e.view.mu.Lock()
	defer e.view.mu.Unlock()
	return e.view.snap
}

// reopens says whether exchange x could take one of the earlier charges
// the view let go by amount: its request names an order, and it was made
// under such a charge's key or its answer names one.
func (v *viewSnap) reopens(t *attributor, x pspfront.Exchange) bool {
	if v.goneKeys.size() == 0 && v.goneIDs.size() == 0 {
		return false
	}
	if t.inText(x.Body) == "" {
		return false
	}
	return v.goneKeys.has(x.Key) || v.goneIDs.in(x.RespBody)
}

// reopensAny is reopens for any of xs; a nil view reopens nothing.
func (v *viewSnap) reopensAny(t *attributor, xs []pspfront.Exchange) bool {
	if v == nil {
		return false
	}
	for _, x := range xs {
		if v.reopens(t, x) {
			return true
		}
	}
	return false
}

// keyNamed says whether a charge of the view was made under the key of an
// earlier exchange whose request named an order.
func (v *viewSnap) keyNamed(charges []history.Op) bool {
	if v.named.size() == 0 {
		return false
	}
	for _, c := range charges {
		if v.named.has(c.Input.PSPKey) {
			return true
		}
	}
	return false
}

// chargesRead is what attribute read of the PSP's charges: the view's
// (view set) or the whole run's, and the exchange to read from.
type chargesRead struct {
	all    []history.Op
	exFrom int
	view   *viewSnap
	// unread says the view's charges could not be read: these are the
	// whole run's instead.
	unread bool
}

// readCharges reads the view's charges when there is a view and the PSP
// can read from a position (and count its charges, known: the cache needs
// the count), else the whole run's. ok is false for a plain counter.
func (e *Env) readCharges(ctx context.Context, known bool) (chargesRead, bool) {
	if v := e.viewSnap(); v.on && known {
		if tail, can := e.Effects.(ChargeTail); can {
			ops, _, can, err := tail.ChargesFrom(ctx, v.pos)
			if can && err != nil {
				// The read error is kept for takeReadError, which Errors
				// the check; the whole run's read is what the judge had
				// before the view (fakepsp's gives what it could read). No
				// attribution would be a plain counter's: the judge would
				// count instead, each round after, as the view stays
				// before what it cannot read.
				rd, ok := e.readWhole(ctx)
				rd.unread = true
				return rd, ok
			}
			if can {
				all := append(slices.Clip(v.carried), ops...)
				return chargesRead{all: all, exFrom: v.ex, view: &v}, true
			}
		}
	}
	return e.readWhole(ctx)
}

func (e *Env) readWhole(ctx context.Context) (chargesRead, bool) {
	all, err := e.Effects.Charges(ctx)
	if err != nil || all == nil {
		return chargesRead{}, false
	}
	return chargesRead{all: all}, true
}

// attributeRead attributes the charges read over the exchanges from
// rd.exFrom on, and says how many the front had. In a view it stops with
// conflict set when the view cannot stand for the whole run.
func (t *attributor) attributeRead(e *Env, rd chargesRead) (a Attribution, open openCharges, exchanges int, conflict bool, err error) {
	if rd.view != nil && rd.view.keyNamed(rd.all) {
		return a, open, 0, true, nil
	}
	reqs := newRequestIndex(rd.all, t.inText)
	exchanges = -1
	if e.Front != nil {
		// Streamed: only what a charge can ask of an exchange is kept.
		exchanges, err = e.Front.EachSince(rd.exFrom, func(i int, x pspfront.Exchange) {
			reqs.add(i, x)
			if rd.view != nil && !conflict && rd.view.reopens(t, x) {
				conflict = true
			}
		})
	}
	if conflict {
		return Attribution{}, openCharges{}, exchanges, true, err
	}
	a, open = t.attributeWith(rd.all, reqs)
	return a, open, exchanges, false, err
}

// advanceView moves the view past the round just judged: called by Absorb,
// the round's orders still in memory. When the round's charges or
// exchanges cannot be read the view stays where it was: the next round's
// reads this one's too.
func (e *Env) advanceView(ctx context.Context) {
	if e.Effects == nil {
		return
	}
	tail, ok := e.Effects.(ChargeTail)
	if !ok {
		return
	}
	if log, ok := e.Effects.(ChargeLog); !ok {
		return
	} else if _, known := log.ChargeCount(ctx); !known {
		return
	}
	if next, ok := e.viewAfter(ctx, tail, e.viewSnap()); ok {
		e.view.mu.Lock()
		e.view.snap = next
		e.view.mu.Unlock()
	}
}

// viewAfter is the view that follows from: the charges from and its
// exchanges let go, and those it carries. Whatever an exchange before the
// next view does to a charge let go, it gives it to an order sent before
// that exchange, so to none of the next rounds' orders (save one sent
// again, which attribute notices): only the charges that may go to a
// later order matter, those given to none (carried) and by amount (gone).
func (e *Env) viewAfter(ctx context.Context, tail ChargeTail, from viewSnap) (viewSnap, bool) {
	// The front's length first: an exchange naming a charge is logged
	// after the PSP logged the charge, so no exchange before ex names a
	// charge the next view reads.
	ex := 0
	if e.Front != nil {
		ex = e.Front.Len()
	}
	ops, pos, can, err := tail.ChargesFrom(ctx, from.pos)
	if !can || err != nil {
		return viewSnap{}, false
	}
	orders, _, _, err := e.ordersAtResent()
	if err != nil {
		return viewSnap{}, false
	}
	t := newAttributor(orders)
	all := append(slices.Clip(from.carried), ops...)
	reqs := newRequestIndex(all, t.inText)
	var named []string
	if e.Front != nil {
		_, err = e.Front.EachSince(from.ex, func(i int, x pspfront.Exchange) {
			if i >= ex {
				return
			}
			reqs.add(i, x)
			if t.inText(x.Body) != "" {
				named = append(named, x.Key)
			}
		})
		if err != nil {
			return viewSnap{}, false
		}
	}
	settled, err := e.namedBefore(t, from, all)
	if err != nil {
		return viewSnap{}, false
	}
	next := viewSnap{on: true, pos: pos, ex: ex, named: from.named.with(named)}
	var keys, ids []string
	for _, c := range all {
		if settled[c.Input.PSPKey] {
			// An earlier request under its key named an order: the
			// whole run gives it to that order or to its metadata's.
			continue
		}
		switch _, how := t.which(c, reqs); how {
		case "":
			next.carried = append(next.carried, c)
		case ByAmount:
			keys = append(keys, c.Input.PSPKey)
			if c.Output != nil {
				ids = append(ids, c.Output.ChargeID)
			}
		}
	}
	next.goneKeys, next.goneIDs = from.goneKeys.with(keys), from.goneIDs.with(ids)
	return next, true
}

// namedBefore are the keys of charges (of all) that an exchange before
// from.ex named an order under. from.named says which may be, by a hash:
// only the exchanges before the view tell for certain, read only when it
// says so, as a charge left out on a shared hash would be lost.
func (e *Env) namedBefore(t *attributor, from viewSnap, all []history.Op) (map[string]bool, error) {
	maybe := map[string]bool{}
	for _, c := range all {
		if from.named.has(c.Input.PSPKey) {
			maybe[c.Input.PSPKey] = false
		}
	}
	if len(maybe) == 0 || e.Front == nil {
		return nil, nil
	}
	_, err := e.Front.EachSince(0, func(i int, x pspfront.Exchange) {
		if i < from.ex && !maybe[x.Key] {
			if _, ok := maybe[x.Key]; ok && t.inText(x.Body) != "" {
				maybe[x.Key] = true
			}
		}
	})
	return maybe, err
}

// attributeAll is the whole run's attribution, whatever the view: the
// recount's, and an earlier round's order's. It is read afresh each time,
// and not cached.
func (e *Env) attributeAll(ctx context.Context) (Attribution, bool) {
	if !e.viewSnap().on {
		return e.attribute(ctx)
	}
	if e.Effects == nil {
		return Attribution{}, false
	}
	rd, ok := e.readWhole(ctx)
	if !ok {
		return Attribution{}, false
	}
	orders, _, _, _ := e.ordersAtResent()
	a, _, _, _, _ := newAttributor(orders).attributeRead(e, rd)
	return a, true
}

// current says whether order is one the rounds since the last absorb
// sent: the view's attribution answers for it.
func (e *Env) current(order string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	i, ok := e.orders.at[order]
	return ok && !e.orders.list[i].judgedOnly
}
