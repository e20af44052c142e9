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
		for taken[k] && k+1 < len(plan) {
			k++
		}
		taken[k] = true
		// Plain: what follows a failover reaches another Region, and the
		// fault's own verdict is about the failover, not a shape.
		plan[k].Fault, plan[k].Shape, plan[k].Stretch = f.Name(), ShapePlain, 0
		var ends []string
		if o, ok := f.(faults.Once); ok {
			ends = o.Ends()
		}
		for i := max(0, k-chaosWorkers); i < len(plan); i++ {
			if i != k && slices.Contains(ends, plan[i].Fault) {
				plan[i].Fault = NoFault
			}
		}
	}
	return plan
}
