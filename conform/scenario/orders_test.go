package scenario

import (
	"context"
	"reflect"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

func sentAs(e *Env, order string, amount int64, intent string) {
	e.track("c", Intent{Meaning: driver.Meaning{OrderID: order, Amount: amount}}, intent)
}

// TestRecountNamesTheLeastIntent: an order sent by several intents (in any
// order) is reported late under the least of their names, as when each
// order kept the set of them; an order never judged is not recounted.
func TestRecountNamesTheLeastIntent(t *testing.T) {
	fx := &growingEffects{}
	e := &Env{Cfg: &config.Config{}, Effects: fx}
	sentAs(e, "ord-a", 10, "p:u1:k2")
	sentAs(e, "ord-a", 10, "p:u1:k1")
	sentAs(e, "ord-a", 10, "p:u1:k3")
	sentAs(e, "ord-b", 20, "p:u1:k0")
	fx.add(charge("ka", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	e.Judged("ord-a", 1, 1, -1)
	fx.add(charge("ka2", 10, map[string]string{"order": "ord-a"}, "ch_2"))
	fx.add(charge("kb", 20, map[string]string{"order": "ord-b"}, "ch_3"))
	fx.add(charge("kb2", 20, map[string]string{"order": "ord-b"}, "ch_4"))
	rs := Recount(context.Background(), e, nil)
	r := rs[len(rs)-1]
	if r.Verdict != Violation || len(r.Findings) != 1 {
		t.Fatalf("verdict %s, %d findings (%s), want one late charge of ord-a", r.Verdict, len(r.Findings), r.Why)
	}
	if f := r.Findings[0]; f.Kind != checker.KindDoubleCharge || f.Intent != "p:u1:k1" || len(f.Charges) != 2 {
		t.Fatalf("finding %s of %q with %d charges, want %s of p:u1:k1 with 2", f.Kind, f.Intent, len(f.Charges), checker.KindDoubleCharge)
	}
}

// TestMismatchUnderAUsedKeyIsTheFirstOrders: another meaning sent under an
// intent already seen counts as the first order's other amount, not as an
// order of its own, until the intents are forgotten.
func TestMismatchUnderAUsedKeyIsTheFirstOrders(t *testing.T) {
	e := &Env{}
	sentAs(e, "ord-a", 10, "p:u1:k1")
	sentAs(e, "ord-a-changed", 11, "p:u1:k1")
	if got, want := e.Orders(), []Order{{ID: "ord-a", Amount: 10, Alt: []int64{11}}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("orders %+v, want %+v", got, want)
	}
	e.forgetIntents()
	sentAs(e, "ord-b", 12, "p:u1:k1")
	if got := e.Orders(); len(got) != 2 || got[1].ID != "ord-b" {
		t.Fatalf("orders %+v, want ord-b on its own after the intents were forgotten", got)
	}
}

// TestAbsorbLetsTheAttributionGo: a round's Absorb drops the cached
// attribution and the round's intents, keeps the orders, and the whole
// run's attribution remade is the same answer; the next round's view
// holds none of the round's charges.
func TestAbsorbLetsTheAttributionGo(t *testing.T) {
	cfg := &config.Config{Create: config.Request{Path: "/payments"}, Callers: []config.Caller{{Name: "u1"}}}
	e, fx, _ := frontEnv(t, true)
	e.Cfg, e.D = cfg, driver.New(cfg, nil)
	parent := &T{Check: &Check{ID: "chaos"}, Env: e, Intents: map[string]bool{}, finals: map[string]*driver.Attempt{}}
	ctx := context.Background()
	sub := parent.Round(ctx)
	sentAs(e, "ord-a", 10, "p:u1:k1")
	fx.add(charge("k1", 10, map[string]string{"order": "ord-a"}, "ch_1"))
	before, _ := e.attribute(ctx)
	if parent.Absorb(context.Background(), "round 1", sub) {
		t.Fatalf("a round with no finding kept its evidence")
	}
	e.attr.mu.Lock()
	cached, by := e.attr.ok, e.attr.a.By
	e.attr.mu.Unlock()
	if cached || by != nil {
		t.Fatalf("the attribution is still cached after the round was absorbed")
	}
	if e.orders.of != nil || len(e.Orders()) != 1 {
		t.Fatalf("after Absorb: intents %v (want none), orders %+v (want ord-a)", e.orders.of, e.Orders())
	}
	after, _ := e.attributeAll(ctx)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("remade %+v, cached %+v", after, before)
	}
	// The next round's view holds none of the round's charges: ord-a's
	// went by its metadata, for good.
	if view, _ := e.attribute(ctx); len(view.By) != 0 || len(view.Unattributed) != 0 || !e.viewSnap().on {
		t.Fatalf("the next round's view %+v (on %v): want no charge", view, e.viewSnap().on)
	}
	if cs, _ := e.ChargesFor(ctx, Intent{Meaning: driver.Meaning{OrderID: "ord-a", Amount: 10}}); len(cs) != 1 {
		t.Fatalf("ord-a's charges after the absorb: %v, want its one", cs)
	}
}
