package checks

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// TestScheduleShapesAreAFunctionOfTheSeed: the same seed draws the same
// plan, shapes and pauses included; another seed another plan.
func TestScheduleShapesAreAFunctionOfTheSeed(t *testing.T) {
	names := faults.Names(faults.All())
	shapes := Shapes()
	for _, seed := range []uint64{1, 3, 42, 1796127724348541514} {
		a := Schedule(seed, names, 2, 80, shapes...)
		if b := Schedule(seed, names, 2, 80, shapes...); !slices.Equal(a, b) {
			t.Fatalf("seed %d: two plans", seed)
		}
		if c := Schedule(seed+1, names, 2, 80, shapes...); slices.Equal(a, c) {
			t.Fatalf("seeds %d and %d: one plan", seed, seed+1)
		}
		for _, p := range a {
			lo, hi := 0, 0
			switch p.Shape {
			case ShapeLateRetry:
				lo, hi = 50, 95 // within the first copy's held attempt
			case ShapePauseRetry:
				lo, hi = 110, 200 // longer than one attempt may take
			}
			if p.Stretch < lo || p.Stretch > hi {
				t.Fatalf("seed %d: intent %d shape %s has pause %d%%", seed, p.N, p.Shape, p.Stretch)
			}
			if p.Shape != ShapePlain && !strings.Contains(p.String(), "shape "+p.Shape) {
				t.Fatalf("seed %d: the plan line does not name the shape: %s", seed, p)
			}
		}
	}
}

// TestScheduleShapesKeepTheOldFields: shapes are drawn after every other
// field, so a plan with shapes has the same callers, faults, copies, delays
// and shared keys as the plan without them; a resolve shape sends one copy.
func TestScheduleShapesKeepTheOldFields(t *testing.T) {
	names := faults.Names(faults.All())
	plain := Schedule(9, names, 3, 200)
	shaped := Schedule(9, names, 3, 200, Shapes()...)
	for i := range plain {
		if plain[i].Shape != ShapePlain || plain[i].Stretch != 0 {
			t.Fatalf("intent %d of the plan without shapes: shape %s, pause %d", i+1, plain[i].Shape, plain[i].Stretch)
		}
		s := shaped[i]
		if isResolveShape(s.Shape) {
			if s.Copies != 1 {
				t.Fatalf("intent %d: resolve shape with %d copies", i+1, s.Copies)
			}
			s.Copies = plain[i].Copies
		}
		s.Shape, s.Stretch = ShapePlain, 0
		if s != plain[i] {
			t.Fatalf("intent %d: %v with shapes, %v without", i+1, shaped[i], plain[i])
		}
	}
}

// TestScheduleHitsEveryFaultAndShapeFirst: the opening intents go through
// every fault (two intents in three of the window) and every enabled shape
// once, so a short run hits all of them; after the window both are drawn.
func TestScheduleHitsEveryFaultAndShapeFirst(t *testing.T) {
	names := faults.Names(faults.All())
	shapes := []string{ShapePlain, ShapeReordered, ShapeChangedMeaning, ShapeRefundFull, ShapeLateRetry}
	for _, seed := range []uint64{1, 3, 5, 77} {
		plan := Schedule(seed, names, 2, 200, shapes...)
		// Every third intent keeps its own draw; the borrowed-key window's
		// quiet slots keep none.
		var faultsSeen, shapesSeen []string
		window := 0
		for i := 0; len(faultsSeen) < len(names); i++ {
			switch {
			case quietSlot(i) && plan[i].Fault != NoFault:
				t.Fatalf("seed %d: quiet slot %d has fault %s", seed, i+1, plan[i].Fault)
			case i%3 != 2 && !quietSlot(i):
				faultsSeen = append(faultsSeen, plan[i].Fault)
			}
			window = i + 1
		}
		for _, p := range plan[:len(shapes)-1] {
			shapesSeen = append(shapesSeen, p.Shape)
		}
		slices.Sort(faultsSeen)
		if want := slices.Sorted(slices.Values(names)); !slices.Equal(faultsSeen, want) {
			t.Fatalf("seed %d: the first %d intents drew faults %v, want each of %v once", seed, window, faultsSeen, want)
		}
		slices.Sort(shapesSeen)
		if want := slices.Sorted(slices.Values(shapes[1:])); !slices.Equal(shapesSeen, want) {
			t.Fatalf("seed %d: the first %d intents drew shapes %v, want each of %v once", seed, len(shapes)-1, shapesSeen, want)
		}
		counts := map[string]int{}
		for _, p := range plan[len(shapes)-1:] {
			if !slices.Contains(shapes, p.Shape) {
				t.Fatalf("seed %d: intent %d drew shape %s, which the config does not enable", seed, p.N, p.Shape)
			}
			counts[p.Shape]++
		}
		rest := len(plan) - len(shapes) + 1
		if counts[ShapePlain] < rest/3 || counts[ShapePlain] > 2*rest/3 {
			t.Fatalf("seed %d: %d of %d intents after the window are plain, want about half", seed, counts[ShapePlain], rest)
		}
		for _, s := range shapes {
			if counts[s] == 0 {
				t.Fatalf("seed %d: no intent after the window drew %s", seed, s)
			}
		}
	}
	// Orders differ between seeds: the window is shuffled, not fixed.
	a, b := Schedule(1, names, 2, 60, shapes...), Schedule(2, names, 2, 60, shapes...)
	if a[0].Fault == b[0].Fault && a[1].Fault == b[1].Fault && a[3].Fault == b[3].Fault && a[0].Shape == b[0].Shape && a[1].Shape == b[1].Shape {
		t.Fatalf("seeds 1 and 2 open with the same faults and shapes: %v / %v", a[:4], b[:4])
	}
}

// TestChaosShapesFollowTheConfig: a shape is drawn only where the config
// lets idemcheck send it, and every other one is named with why.
func TestChaosShapesFollowTheConfig(t *testing.T) {
	bare := &scenario.Env{Cfg: &config.Config{Create: config.Request{Body: `{"order_id": "{{order_id}}", "amount": {{amount}}}`}}}
	on, off := chaosShapes(bare)
	if want := []string{ShapePlain, ShapeReordered, ShapeChangedMeaning, ShapeLateRetry, ShapePauseRetry}; !slices.Equal(on, want) {
		t.Fatalf("a config without lookup, refund or volatile fields enables %v, want %v", on, want)
	}
	wantOff := map[string]string{
		ShapeVolatile: "no create.volatile_fields in the config", ShapeLookup: "no lookup request in the config",
		ShapeRefundFull: "no refund request in the config", ShapeRefundRepeat: "no refund request in the config", ShapeRefundConcurrent: "no refund request in the config",
		ShapeResolveFirst: "no resolve request in the config", ShapeResolveRace: "no resolve request in the config",
		ShapeRefundPartial: "no refund request in the config",
	}
	if len(off) != len(wantOff) {
		t.Fatalf("not drawn: %v, want %v", off, wantOff)
	}
	for s, why := range wantOff {
		if off[s] != why {
			t.Fatalf("%s not drawn because %q, want %q", s, off[s], why)
		}
	}
	lines := notDrawn(off)
	if !slices.Contains(lines, "refund-full, refund-repeat, refund-concurrent, refund-partial-repeat not drawn: no refund request in the config") {
		t.Fatalf("the log does not say why no refund shape was drawn: %v", lines)
	}

	// A refund request without the fake PSP: nothing could judge a refund.
	full := &scenario.Env{Cfg: &config.Config{
		Create: config.Request{Body: `amount={{amount}}`, VolatileFields: []string{"sent_at"}},
		Lookup: &config.Request{Path: "/p/{{payment_id}}"}, Refund: &config.Request{Path: "/p/{{payment_id}}/refund"},
		Resolve: &config.Request{Path: "/p/resolve"},
	}}
	on, off = chaosShapes(full)
	if want := []string{ShapePlain, ShapeVolatile, ShapeChangedMeaning, ShapeLookup, ShapeLateRetry, ShapePauseRetry, ShapeResolveFirst, ShapeResolveRace}; !slices.Equal(on, want) {
		t.Fatalf("enabled %v, want %v", on, want)
	}
	if off[ShapeReordered] != "the create body is not a JSON object, so it has no members to reorder" || off[ShapeRefundFull] != scenario.NeedPSP(full) {
		t.Fatalf("not drawn: %v", off)
	}
	for _, p := range Schedule(4, []string{"psp-slow"}, 2, 100, on...) {
		if !slices.Contains(on, p.Shape) {
			t.Fatalf("intent %d drew %s, not enabled", p.N, p.Shape)
		}
	}
}

// TestShapeTallyIsHonest: a drawn shape that never happened is named with
// why, never counted as carried out.
func TestShapeTallyIsHonest(t *testing.T) {
	st := newShapeTally()
	st.note(ShapeReordered, "")
	st.note(ShapeReordered, "")
	st.note(ShapeRefundFull, "the create never ended succeeded")
	st.note(ShapeRefundFull, "the create's success named no payment")
	st.note(ShapeLookup, "the intent ended void")
	st.note(ShapeLookup, "")
	done, never := st.summary()
	if done != "reordered-retry 2, lookup 1" {
		t.Fatalf("carried out: %q", done)
	}
	if never != "refund-full (drawn 2 times: the create never ended succeeded)" {
		t.Fatalf("never carried out: %q", never)
	}
}

// TestDistinctRefunds: a refund the PSP logged again under its key or its
// refund id is one refund; two keys are two.
func TestDistinctRefunds(t *testing.T) {
	op := func(key, id string) history.Op {
		return history.Op{Op: history.OpRefund, Input: history.Input{PSPKey: key, Amount: history.Int64(500)}, Output: &history.Output{RefundID: id}}
	}
	got := distinctRefunds([]history.Op{op("p:refund", "re_1"), op("p:refund", "re_1"), op("p:refund", ""), op("p:refund:x", "re_1"), op("p:refund:y", "re_2")})
	if len(got) != 2 || got[0].Output.RefundID != "re_1" || got[1].Output.RefundID != "re_2" {
		t.Fatalf("distinct refunds %v, want re_1 and re_2", got)
	}
}

// TestResolveShapesGoWhereTheyCanHappen: a voided intent never reaches the
// PSP, so the resolve shapes land only on intents without a fault (which
// could not fire); each is drawn on an intent's own key and on a key
// borrowed from another caller.
func TestResolveShapesGoWhereTheyCanHappen(t *testing.T) {
	names := faults.Names(faults.All())
	for _, seed := range []uint64{1, 3, 42, 1796127724348541514} {
		seen := map[string]int{}
		for _, p := range Schedule(seed, names, 2, 80, Shapes()...) {
			if !isResolveShape(p.Shape) {
				continue
			}
			seen[fmt.Sprintf("%s borrowed=%t", p.Shape, p.KeyOf != 0)]++
			if p.Fault != NoFault || p.Stretch != 0 || p.Copies != 1 {
				t.Errorf("seed %d: %s", seed, p)
			}
		}
		for _, sh := range []string{ShapeResolveFirst, ShapeResolveRace} {
			for _, b := range []bool{false, true} {
				if seen[fmt.Sprintf("%s borrowed=%t", sh, b)] == 0 {
					t.Errorf("seed %d: %s never drawn with borrowed=%t: %v", seed, sh, b, seen)
				}
			}
		}
	}
}

// TestEveryShapeGoesToABorrowedKey: the borrowed-key window gives each
// enabled shape once to an intent that sends another caller's key, so a
// short run tries every request shape on a borrowed key.
func TestEveryShapeGoesToABorrowedKey(t *testing.T) {
	names := faults.Names(faults.All())
	for _, seed := range []uint64{1, 2, 3, 42, 1796127724348541514} {
		plan := Schedule(seed, names, 2, 80, Shapes()...)
		on := map[string]bool{}
		for _, p := range plan {
			if p.KeyOf != 0 {
				on[p.Shape] = true
			}
		}
		for _, sh := range Shapes() {
			if !on[sh] {
				t.Errorf("seed %d: shape %s never sent on a borrowed key", seed, sh)
			}
		}
	}
}

// TestPartialRefundNeedsAnAmount: the partial refund asks a third of the
// payment, and only of a refund request that carries {{amount}}.
func TestPartialRefundNeedsAnAmount(t *testing.T) {
	if partOf(3000) != 1000 || partOf(2) != 1 || 2*partOf(3001) > 3001 {
		t.Fatalf("partOf: %d %d %d", partOf(3000), partOf(2), partOf(3001))
	}
	e := &scenario.Env{Cfg: &config.Config{Refund: &config.Request{Path: "/p/{{payment_id}}/refund"}}}
	if why := partialOff(e, ""); !strings.Contains(why, "no {{amount}}") {
		t.Fatalf("a refund without {{amount}}: %q", why)
	}
	e.Cfg.Refund.Body = `{"amount": {{ amount }}}`
	if why := partialOff(e, ""); why != "" {
		t.Fatalf("a refund with {{amount}}: %q", why)
	}
	if why := partialOff(e, "no refund request in the config"); why != "no refund request in the config" {
		t.Fatalf("the refund shapes' reason is not kept: %q", why)
	}
}
