package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// ChargesFrom makes growingEffects a ChargeTail, as fakepsp's effects are:
// its log holds charges only, so a position is a charge's index.
func (g *growingEffects) ChargesFrom(_ context.Context, pos int) ([]history.Op, int, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pos = min(pos, len(g.ops))
	return append([]history.Op(nil), g.ops[pos:]...), len(g.ops), true, nil
}

// racyEffects is growingEffects with something happening just before
// each read from a position: the service charging and calling the PSP while
// the judge reads (between the front's length and the charges in
// viewAfter, between the count and the read in attribute).
type racyEffects struct {
	*growingEffects
	before func()
}

func (r racyEffects) ChargesFrom(ctx context.Context, pos int) ([]history.Op, int, bool, error) {
	if r.before != nil {
		r.before()
	}
	return r.growingEffects.ChargesFrom(ctx, pos)
}

// absorbRound does what Absorb does to the Env at the end of a round.
func absorbRound(e *Env) {
	e.advanceView(context.Background())
	e.forgetJudged()
	e.absorbOrders()
}

// viewRun draws the rounds of a run over one deployment, as a service that
// may do any of what the round's view must notice would make them: each
// round sends orders of its own (some of an amount an earlier round sent),
// the PSP charges them under fresh keys or a key an earlier round used,
// with or without the order id in the metadata or the request, some twice,
// some at an amount no order sent; a later round charges an earlier
// round's order late, and sends requests naming an order under an earlier
// charge's key or naming it. Ids are written so that no text holds an
// order's id before the order was sent: the view assumes that much.
type viewRun struct {
	r      *rand.Rand
	round  int
	orders []Order // the round's
	all    []Order
	keys   []string // every key used
	cids   []string // every charge id made
	n      int
}

func (v *viewRun) fresh(prefix string) string {
	v.n++
	return fmt.Sprintf("<%s-%d-%d>", prefix, v.round, v.n)
}

// step does one thing of the round: send an order, charge, or log an
// exchange; late, only charge or log an exchange (what the service does
// while the judge reads).
func (v *viewRun) step(e *Env, fx *growingEffects, send func(pspfront.Exchange), late bool) {
	r := v.r
	k := r.IntN(10)
	if late {
		if len(v.orders) == 0 {
			return
		}
		k = 3 + r.IntN(7)
	}
	switch {
	case k < 3 || len(v.orders) == 0:
		switch r.IntN(8) {
		case 0:
			if len(v.orders) > 0 {
				// A current order sent again at another amount (Alt).
				sent(e, v.orders[r.IntN(len(v.orders))].ID, 1+r.Int64N(12))
				return
			}
		case 1:
			if len(v.all) > 0 {
				// Judged: an earlier order's is a judgedOnly record.
				e.Judged(v.all[r.IntN(len(v.all))].ID, 1, 0, 0)
				return
			}
		}
		o := Order{ID: v.fresh("ord"), Amount: 1 + r.Int64N(12)}
		if r.IntN(12) == 0 && len(v.all) > 0 {
			o.ID = v.all[r.IntN(len(v.all))].ID // an earlier round's order sent again
		}
		sent(e, o.ID, o.Amount)
		v.orders = append(v.orders, o)
		v.all = append(v.all, o)
	case k < 7:
		o := v.orders[r.IntN(len(v.orders))]
		if r.IntN(6) == 0 {
			o = v.all[r.IntN(len(v.all))] // a late charge of any order
		}
		key := v.fresh("key")
		if r.IntN(5) == 0 && len(v.keys) > 0 {
			key = v.keys[r.IntN(len(v.keys))]
		}
		v.keys = append(v.keys, key)
		amt := o.Amount
		if r.IntN(6) == 0 {
			amt = 20 + r.Int64N(4) // no order sent it
		}
		var md map[string]string
		switch r.IntN(3) {
		case 0:
			md = map[string]string{"a_caller": "u1", "order_id": o.ID}
		case 1:
			md = map[string]string{"payment_id": v.fresh("pay")}
		}
		cid := v.fresh("ch")
		v.cids = append(v.cids, cid)
		switch r.IntN(10) {
		case 0:
			key = "" // no idempotency key
		case 1:
			cid = "" // no charge id
		}
		fx.add(charge(key, amt, md, cid))
		if r.IntN(2) == 0 {
			body := fmt.Sprintf("amount=%d", amt)
			if r.IntN(2) == 0 {
				body += "&description=" + o.ID
			}
			send(pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: key, Body: body, RespBody: `{"latest_charge":"` + cid + `"}`})
		}
	default:
		x := pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: v.fresh("key")}
		if r.IntN(2) == 0 && len(v.keys) > 0 {
			x.Key = v.keys[r.IntN(len(v.keys))]
		}
		if r.IntN(10) == 0 {
			x.Key = ""
		}
		switch r.IntN(3) {
		case 0:
			x.Body = "description=" + v.all[r.IntN(len(v.all))].ID
		case 1:
			x.Body = "description=" + v.orders[r.IntN(len(v.orders))].ID
		}
		if r.IntN(2) == 0 && len(v.cids) > 0 {
			x.RespBody = `{"latest_charge":"` + v.cids[r.IntN(len(v.cids))] + `"}`
		}
		if r.IntN(3) == 0 {
			x.Method, x.Body = "GET", ""
		}
		send(x)
	}
}

// TestRoundViewAgreesWithTheWholeRun: over drawn runs of rounds, every
// answer the round's view gives for the round's orders is the whole run's
// (the direct search over every charge, exchange and order so far), cached
// or not; an earlier round's order's charges and the recount's are the
// whole run's too. The draws must reach both a view that stood for the
// whole run and one that could not, or they prove little.
func TestRoundViewAgreesWithTheWholeRun(t *testing.T) {
	seed := testseed.Seed(t)
	t.Logf("seed %d (IDEMCHECK_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 62))
	ctx := context.Background()
	var viewed, whole, carried int
	for i := range 150 {
		f, send := answeringFront(t)
		fx := &growingEffects{}
		v := &viewRun{r: r}
		var e *Env
		racy := racyEffects{growingEffects: fx, before: func() {
			if r.IntN(4) == 0 {
				for range 1 + r.IntN(2) {
					v.step(e, fx, send, true)
				}
			}
		}}
		e = &Env{Effects: racy, Front: f}
		for round := range 2 + r.IntN(4) {
			v.round, v.orders = round, nil
			for range 4 + r.IntN(20) {
				v.step(e, fx, send, false)
				if r.IntN(3) > 0 {
					continue
				}
				got, _ := e.attribute(ctx)
				want := attributeNaive(fx.ops, f.Exchanges(), e.Orders())
				for _, o := range v.orders {
					if !reflect.DeepEqual(got.By[o.ID], want.By[o.ID]) {
						t.Fatalf("seed %d case %d round %d: the view gives %s %v, the whole run %v (view on %v)",
							seed, i, round, o.ID, got.By[o.ID], want.By[o.ID], e.viewSnap().on)
					}
				}
				{
					o := v.all[r.IntN(len(v.all))]
					got, _ := e.ChargesFor(ctx, Intent{Meaning: driver.Meaning{OrderID: o.ID, Amount: o.Amount}})
					// The service may have charged while it read.
					want := attributeNaive(fx.ops, f.Exchanges(), e.Orders())
					if len(got) != len(want.By[o.ID]) || (len(got) > 0 && !reflect.DeepEqual(got, want.By[o.ID])) {
						t.Fatalf("seed %d case %d round %d: ChargesFor(%s) = %v, the whole run %v", seed, i, round, o.ID, got, want.By[o.ID])
					}
				}
				if e.viewSnap().on {
					viewed++
				}
			}
			whole += e.attr.stats.whole
			absorbRound(e)
			carried += len(e.viewSnap().carried)
		}
		got, _ := e.attributeAll(ctx)
		if want := attributeNaive(fx.ops, f.Exchanges(), e.Orders()); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d case %d: the recount's attribution %+v, the whole run's %+v", seed, i, got, want)
		}
		if err := takeReadError(e); err != nil {
			t.Fatal(err)
		}
		_ = e.Close()
	}
	t.Logf("%d asks in a view, %d remade whole, %d charges carried", viewed, whole, carried)
	if viewed == 0 || whole == 0 || carried == 0 {
		t.Fatalf("%d asks in a view, %d remade whole, %d carried: the draws missed a case", viewed, whole, carried)
	}
}

// failingTail is growingEffects whose reads from a position fail once
// failing is set, as fakepsp's do when a chunk of its log on disk cannot
// be read back; reading every charge still gives what it can.
type failingTail struct {
	*growingEffects
	failing bool
}

func (f *failingTail) ChargesFrom(ctx context.Context, pos int) ([]history.Op, int, bool, error) {
	ops, next, can, err := f.growingEffects.ChargesFrom(ctx, pos)
	if f.failing {
		err = fmt.Errorf("chunk 1 of 1 of its log: lost")
	}
	return ops, next, can, err
}

// TestRoundViewUnreadableReadsTheWholeRun: when the view's charges cannot
// be read, the round's attribution is the whole run's, as before the view
// (the read error Errors the check); not "no attribution", which the judge
// takes for a plain counter and judges by the count.
func TestRoundViewUnreadableReadsTheWholeRun(t *testing.T) {
	f, send := answeringFront(t)
	fx := &failingTail{growingEffects: &growingEffects{}}
	e := &Env{Effects: fx, Front: f}
	ctx := context.Background()
	sent(e, "<ord-a>", 10)
	fx.add(charge("k1", 10, map[string]string{"order_id": "<ord-a>"}, "ch_1"))
	send(pspfront.Exchange{Method: "POST", Key: "k1", Body: "description=<ord-a>"})
	absorbRound(e)
	if !e.viewSnap().on {
		t.Fatal("the view did not move past round 1")
	}
	sent(e, "<ord-b>", 20)
	fx.add(charge("k2", 20, nil, "ch_2"))
	fx.add(charge("k3", 20, map[string]string{"order_id": "<ord-b>"}, "ch_3"))
	fx.failing = true
	want := attributeNaive(fx.ops, f.Exchanges(), e.Orders())
	got, ok := e.attribute(ctx)
	if !ok || !reflect.DeepEqual(got.By["<ord-b>"], want.By["<ord-b>"]) {
		t.Fatalf("the view unreadable: attribute = %v, %v; want the whole run's %v", got.By["<ord-b>"], ok, want.By["<ord-b>"])
	}
	if cs, ok := e.ChargesFor(ctx, Intent{Meaning: driver.Meaning{OrderID: "<ord-b>", Amount: 20}}); !ok || len(cs) != 2 {
		t.Fatalf("the view unreadable: ChargesFor = %v, %v; want its 2 charges", cs, ok)
	}
	if e.attr.stats.whole != 1 {
		t.Fatalf("%d remakes counted whole, want 1", e.attr.stats.whole)
	}
}

// TestViewKeepsAChargeItsKeyHashOnlySeemsToName: the hashes of the keys
// earlier requests named an order under say only which keys may be; a
// charge under one that no earlier exchange really named an order under
// (a shared hash, here a set that says so outright) is still carried, not
// dropped as settled.
func TestViewKeepsAChargeItsKeyHashOnlySeemsToName(t *testing.T) {
	f, send := answeringFront(t)
	fx := &growingEffects{}
	e := &Env{Effects: fx, Front: f}
	defer e.Close()
	ctx := context.Background()
	sent(e, "<ord-a>", 10)
	send(pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k-named", Body: "description=<ord-a>"})
	send(pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k-plain", Body: "amount=99"})
	fx.add(charge("k-named", 99, nil, "ch_1")) // no amount sent 99: named, settled
	fx.add(charge("k-plain", 99, nil, "ch_2")) // explained by nothing: carried
	from := viewSnap{on: true, ex: f.Len(), named: refSet{}.with([]string{"k-named", "k-plain"})}
	next, ok := e.viewAfter(ctx, fx, from)
	if !ok {
		t.Fatal("viewAfter failed")
	}
	if len(next.carried) != 1 || next.carried[0].Output.ChargeID != "ch_2" {
		t.Fatalf("carried %v: want ch_2 only (ch_1's key did name an order, ch_2's only shares the set)", next.carried)
	}
}
