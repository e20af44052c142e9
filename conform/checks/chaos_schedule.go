package checks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// Planned is one intent of the chaos schedule.
type Planned struct {
	N      int
	Caller int
	// Fault is a name of the fault catalogue (faults.All), or NoFault.
	Fault  string
	Copies int
	// Delay before the intent's first send, to mix timings deterministically.
	Delay time.Duration
	// KeyOf, when set, is an earlier intent of another caller whose client
	// key this one sends too: two callers that happen to make the same key
	// are two payments (A6).
	KeyOf int
	// Shape is what the client sends around the create (chaos_shapes.go):
	// ShapePlain unless the schedule was given shapes.
	Shape string
	// Stretch is the pause of the late and long-pause shapes, in per cent of
	// the request timeout (0 for the other shapes).
	Stretch int
}

func (p Planned) String() string {
	s := fmt.Sprintf("intent %03d caller %d fault %-36s copies %d delay %s", p.N, p.Caller, p.Fault, p.Copies, p.Delay)
	if p.KeyOf > 0 {
		s += fmt.Sprintf(" key of intent %03d", p.KeyOf)
	}
	if p.Shape != "" && p.Shape != ShapePlain {
		s += " shape " + p.Shape
		if p.Stretch > 0 {
			s += fmt.Sprintf(" (pause %d%% of the timeout)", p.Stretch)
		}
	}
	return s
}

// Schedule is the chaos plan: a pure function of seed, the faults that apply
// (names, in catalogue order), callers, length and the shapes the config
// enables (catalogue order; none: every intent plain), so the same seed on
// the same system replays the same faults and shapes on the same intents.
// The first intents go through every fault and every shape once, in an
// order the seed shuffles (chaos_window.go), so a short run hits each of them,
// and one of intents 2-4 sends intent 1's key from another caller; after that, one intent in three goes without a fault, so traffic keeps
// flowing between faults, about one in twelve reuses the key another caller
// sent, and one in two is plain.
func Schedule(seed uint64, names []string, callers, n int, shapes ...string) []Planned {
	kinds := []string{NoFault}
	for range (len(names) + 1) / 2 {
		kinds = append(kinds, NoFault)
	}
	kinds = append(kinds, names...)
	firstFaults := faultWindow(seed, names, n)
	var other []string // the shapes besides plain
	for _, s := range shapes {
		if s != ShapePlain {
			other = append(other, s)
		}
	}
	firstShapes := shuffled(seed, shapeStream, other)
	borrowedShapes := shuffled(seed, borrowStream, other)
	if len(other) == 0 {
		borrowedShapes = nil
	}
	keyAt := keyWindow(seed, callers, n)
	out := make([]Planned, n)
	keyUsers := map[int]map[int]bool{} // intent index -> callers sending its key
	for i := range out {
		r := rand.New(rand.NewPCG(seed, uint64(i)+1))
		copies := 1
		if r.IntN(3) == 0 {
			copies = 2 + r.IntN(3)
		}
		out[i] = Planned{N: i + 1, Caller: r.IntN(max(callers, 1)), Fault: kinds[r.IntN(len(kinds))], Copies: copies,
			Delay: time.Duration(r.IntN(200)) * time.Millisecond}
		if f, ok := firstFaults[i]; ok {
			out[i].Fault = f // drawn above all the same: the fields after it keep their values
		}
		if quietSlot(i) && callers >= 2 {
			out[i].Fault = NoFault
		}
		// Drawn after the rest, so the fields above stay what they were.
		if i == keyAt && len(keyUsers[0]) == 0 { // else an earlier intent shares it already
			out[i].Caller, out[i].KeyOf = otherCaller(seed, out[0].Caller, callers), 1
			keyUsers[0] = keyUsersOf(keyUsers[0], out[0].Caller, out[i].Caller)
		} else if i > 0 && r.IntN(8) == 0 {
			if j := r.IntN(i); out[j].KeyOf == 0 && out[j].Caller != out[i].Caller && !keyUsers[j][out[i].Caller] {
				out[i].KeyOf = j + 1
				keyUsers[j] = keyUsersOf(keyUsers[j], out[j].Caller, out[i].Caller)
			}
		}
		if inBorrowWindow(i) && out[i].KeyOf == 0 {
			borrow(seed, out, i, callers, keyUsers)
		}
		out[i].Shape = ShapePlain
		if len(other) > 0 {
			// Drawn whatever the window says, so every later draw of this
			// intent is the same with and without it.
			plain, pick, stretch := r.IntN(2) == 0, r.IntN(len(other)), 110+r.IntN(91)
			switch {
			case i < len(firstShapes):
				out[i].Shape = firstShapes[i]
			case !plain:
				out[i].Shape = other[pick]
			}
			switch out[i].Shape {
			case ShapePauseRetry:
				out[i].Stretch = stretch
			case ShapeLateRetry:
				// Within the first copy's own attempt, which the shape
				// holds open at the PSP (chaos_follow.go).
				out[i].Stretch = 50 + (stretch-110)/2
			}
		}
	}
	borrowedWindow(seed, out, borrowedShapes)
	resolveSlots(out)
	for i := range out {
		if out[i].Shape == ShapeLateRetry && out[i].Fault == faults.DependencyReplyLost.Name() {
			// The late retry holds the owner's PSP answer at the front,
			// past the service's own PSP timeout: no reply crosses a
			// dependency link while the fault is armed, so it could never
			// fire. Chosen without a draw, so nothing else changes.
			out[i].Shape, out[i].Stretch = ShapePlain, 0
		}
	}
	return out
}

// borrowFrom is where the borrowed-key window opens: past the shape window
// (one intent per shape of the catalogue), and as long as the catalogue.
// Each intent there sends an earlier intent's key from another caller,
// whatever shapes the config enables, so the plan's keys do not depend on
// them; with shapes, each enabled shape goes once to a borrowed key. A
// service that scopes any read or write of a key by less than (caller,
// key) shows it on the path that read or write is on, RESOLVE, lookup and
// refunds included, so no shape is kept to own keys by assumption.
var borrowFrom = len(shapeCatalogue)

// inBorrowWindow says whether intent index i borrows in the window: every
// other intent, so that the ones between keep own keys for later intents to
// borrow (each key goes to each caller once).
func inBorrowWindow(i int) bool {
	return i >= borrowFrom && i < borrowFrom+2*len(shapeCatalogue) && (i-borrowFrom)%2 == 1
}

// borrow makes intent i send the key of an earlier intent of another caller,
// when one is left that i's caller (or, failing that, another caller) has
// not sent yet.
func borrow(seed uint64, out []Planned, i, callers int, keyUsers map[int]map[int]bool) {
	if callers < 2 {
		return
	}
	r := rand.New(rand.NewPCG(seed, borrowStream+uint64(i)))
	for _, j := range r.Perm(i) {
		if out[j].KeyOf != 0 {
			continue
		}
		c := out[i].Caller
		if c == out[j].Caller || keyUsers[j][c] {
			c = otherCaller(seed+uint64(i), out[j].Caller, callers)
		}
		if c != out[j].Caller && !keyUsers[j][c] {
			out[i].Caller, out[i].KeyOf = c, j+1
			keyUsers[j] = keyUsersOf(keyUsers[j], out[j].Caller, c)
			return
		}
	}
}

// borrowedWindow gives each shape once to an intent of the borrowed-key
// window: the resolve shapes first, to intents without a fault (a voided
// intent never reaches the PSP, so its fault could not fire), the others to
// the rest in the seed's order.
func borrowedWindow(seed uint64, out []Planned, shapes []string) {
	var free, faulted, later []int
	for i := borrowFrom; i < len(out); i++ {
		switch {
		case out[i].KeyOf == 0:
		case !inBorrowWindow(i):
			if out[i].Fault == NoFault {
				later = append(later, i)
			}
		case out[i].Fault == NoFault:
			free = append(free, i)
		default:
			faulted = append(faulted, i)
		}
	}
	if len(shapes) == 0 {
		return
	}
	shapes = append(slices.Clone(shapes), ShapePlain)
	var resolves, rest []string
	for _, sh := range shapes {
		if isResolveShape(sh) {
			resolves = append(resolves, sh)
		} else {
			rest = append(rest, sh)
		}
	}
	// A resolve shape with no fault-free intent in the window takes one
	// after it (a drawn borrowed key), before any faulted one.
	for len(free) < len(resolves) && len(later) > 0 {
		free, later = append(free, later[0]), later[1:]
	}
	slots := append(free, faulted...)
	order := append(resolves, rest...)
	for k, sh := range order {
		if k >= len(slots) {
			return
		}
		i := slots[k]
		if sh == ShapeLateRetry && out[i].Fault == faults.DependencyReplyLost.Name() && k+1 < len(order) && k+1 < len(slots) {
			// That fault cannot fire under a late retry (Schedule makes
			// such a pair plain): trade with the next shape.
			order[k], order[k+1] = order[k+1], order[k]
			sh = order[k]
		}
		r := rand.New(rand.NewPCG(seed, borrowStream^uint64(i)))
		out[i].Shape, out[i].Stretch = sh, 0
		switch sh {
		case ShapePauseRetry:
			out[i].Stretch = 110 + r.IntN(91)
		case ShapeLateRetry:
			out[i].Stretch = 50 + r.IntN(46)
		}
	}
}

// keyWindow is the opening intent that sends intent 1's key from another
// caller (A6): drawn at random one in twelve, a shared key may come only
// late in a short run, and a scope bug it alone shows would go unseen.
// -1 when there is one caller (no other caller to share with).
func keyWindow(seed uint64, callers, n int) int {
	if callers < 2 || n < 2 {
		return -1
	}
	r := rand.New(rand.NewPCG(seed, keyStream))
	return 1 + r.IntN(min(3, n-1))
}

// otherCaller is a caller other than c, drawn from seed.
func otherCaller(seed uint64, c, callers int) int {
	r := rand.New(rand.NewPCG(seed, keyStream+1))
	return (c + 1 + r.IntN(callers-1)) % callers
}

// keyUsersOf adds callers to the set of those sending one intent's key: a key
// goes to each caller once, or one caller would send one key for two intents.
func keyUsersOf(set map[int]bool, callers ...int) map[int]bool {
	if set == nil {
		set = map[int]bool{}
	}
	for _, c := range callers {
		set[c] = true
	}
	return set
}
