package checks

import (
	"math/rand/v2"
	"slices"

	"github.com/idemcheck/idemcheck/faults"
)

// chaosWorkers is how many intents of a chaos run are in flight at once.
const chaosWorkers = 4

// PlaceOnce puts each fault that can happen only once (faults.Once: a Region
// failover) on one intent of plan, picked by the seed in the plan's middle
// third, so traffic runs before it and against the system it leaves after
// it. The faults it ends are taken off every intent that could still be in
// flight when it strikes, and off every later one: they would find nothing
// to act on and prove nothing. A pure function of its arguments, like
// Schedule.
func PlaceOnce(plan []Planned, seed uint64, once []faults.Fault) []Planned {
	taken := map[int]bool{}
	for j, f := range once {
		if len(plan) == 0 {
			return plan
		}
		r := rand.New(rand.NewPCG(seed, ^uint64(j)))
		k := len(plan)/3 + r.IntN(max(1, len(plan)/3))
		k = freeIntent(plan, k, taken)
		taken[k] = true
		// Plain: what follows a failover reaches another Region, and the
		// fault's own verdict is about the failover, not a shape.
		plan[k].Fault, plan[k].Shape, plan[k].Stretch = f.Name(), ShapePlain, 0
		var ends []string
		if o, ok := f.(faults.Once); ok {
			ends = o.Ends()
		}
		for _, name := range ends {
			keepBefore(plan, name, max(0, k-chaosWorkers))
		}
		for i := max(0, k-chaosWorkers); i < len(plan); i++ {
			if i != k && slices.Contains(ends, plan[i].Fault) {
				plan[i].Fault = NoFault
			}
		}
	}
	return plan
}

// freeIntent is the intent of the middle third nearest after k (else before it) that the once
// fault can take without taking the run's only draw of anything: first one
// with no fault, a plain shape and its own key; else one whose fault the
// plan draws again elsewhere; else one with no fault and a shape other than
// RESOLVE's (the shape is drawn again later, one intent in two). Never a
// quiet slot, never one taken. The opening window gives each fault one
// intent, and a once fault put on it erased that fault from the run (seed
// 11 of the reference's kill matrix lost crash-relay-after-publish-before-
// delete so, and with it the relay switch). k itself when nothing is free.
func freeIntent(plan []Planned, k int, taken map[int]bool) int {
	draws := map[string]int{}
	for _, p := range plan {
		draws[p.Fault]++
	}
	levels := []func(p Planned) bool{
		func(p Planned) bool {
			return p.Fault == NoFault && (p.Shape == "" || p.Shape == ShapePlain) && p.KeyOf == 0
		},
		func(p Planned) bool { return p.Fault != NoFault && draws[p.Fault] > 1 && !isResolveShape(p.Shape) },
		func(p Planned) bool { return p.Fault == NoFault && !isResolveShape(p.Shape) },
	}
	// Within the middle third, where the once fault has traffic on both
	// sides of it.
	lo, hi := len(plan)/3, max(len(plan)/3+1, 2*len(plan)/3)
	for _, ok := range levels {
		free := func(i int) bool { return !taken[i] && !quietSlot(i) && ok(plan[i]) }
		for i := k; i < hi; i++ {
			if free(i) {
				return i
			}
		}
		for i := k - 1; i >= lo; i-- {
			if free(i) {
				return i
			}
		}
	}
	for taken[k] && k+1 < len(plan) {
		k++
	}
	return k
}

// keepBefore moves fault name onto a free intent before limit when the
// plan draws it only at or after limit, where the once fault ends it: the
// run would otherwise never draw it.
func keepBefore(plan []Planned, name string, limit int) {
	at := -1
	for i, p := range plan {
		if p.Fault == name {
			if i < limit {
				return
			}
			if at < 0 {
				at = i
			}
		}
	}
	if at < 0 {
		return
	}
	// A shape carries a fault as well as a plain send does, but for the
	// resolve shapes (they need no fault) and a late retry's hold, under
	// which a dependency's reply never crosses (Schedule). First an intent
	// with no fault, else one whose fault the plan draws again elsewhere.
	draws := map[string]int{}
	for _, p := range plan {
		draws[p.Fault]++
	}
	for _, ok := range []func(p Planned) bool{
		func(p Planned) bool { return p.Fault == NoFault },
		func(p Planned) bool { return p.Fault != NoFault && p.Fault != name && draws[p.Fault] > 1 },
	} {
		for i := range limit {
			p := plan[i]
			if ok(p) && !quietSlot(i) && !isResolveShape(p.Shape) &&
				(p.Shape != ShapeLateRetry || name != faults.DependencyReplyLost.Name()) {
				plan[i].Fault = name
				return
			}
		}
	}
}
