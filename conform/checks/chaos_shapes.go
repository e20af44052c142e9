package checks

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// The request shapes a chaos intent can take besides its fault: what the
// client sends around the create, drawn by the seed among those the config
// enables (chaosShapes). Every shape is a request a real client sends, and
// each is judged by the rule it exercises (docs/SCENARIOS.md, run-chaos).
const (
	// ShapePlain: the copies, then retries until a final answer.
	ShapePlain = "plain"
	// ShapeReordered: once final, the same request with its JSON members
	// reordered: a true retry, which must replay (A5; false-mismatch).
	ShapeReordered = "reordered-retry"
	// ShapeVolatile: once final, the same request with the config's
	// volatile fields changed: a true retry (A5; false-mismatch).
	ShapeVolatile = "volatile-retry"
	// ShapeChangedMeaning: once final, the same key with one meaning field
	// changed, one retry per field (so one such intent changes every
	// field): each a mismatch the service must refuse (A5;
	// mismatch-accepted).
	ShapeChangedMeaning = "changed-meaning-retry"
	// ShapeLookup: once final, the lookup of the answered payment, recorded
	// as a resolve ("did it happen?") the checker holds to the charge.
	ShapeLookup = "lookup"
	// ShapeRefundFull: once succeeded, a refund, retried until final.
	ShapeRefundFull = "refund-full"
	// ShapeRefundRepeat: the refund's PSP reply lost once, the refund
	// repeated under its key, then retried until final (B6).
	ShapeRefundRepeat = "refund-repeat"
	// ShapeRefundConcurrent: copies of the refund at once under its key.
	ShapeRefundConcurrent = "refund-concurrent"
	// ShapeRefundPartial: a refund of a third of the payment, its PSP reply
	// lost once, repeated under its key with the same part: room is left
	// at the PSP for a second refund, so a repeat carried out again under
	// another key moves money (double-refund) where a whole refund's repeat
	// would be refused.
	ShapeRefundPartial = "refund-partial-repeat"
	// ShapeLateRetry: a retry to another instance late in the first copy's
	// attempt, while its PSP call is held open (and past the owner's lease
	// when the intent's fault froze or slowed it): the retry must wait,
	// take over with the same PSP key, or answer in progress, never charge
	// again.
	ShapeLateRetry = "late-retry"
	// ShapePauseRetry: the retry after a pause longer than the request
	// timeout (a resolver may have settled the payment by then).
	ShapePauseRetry = "long-pause-retry"
)

// shapeCatalogue is every shape in the one order the schedule draws from.
var shapeCatalogue = []string{ShapePlain, ShapeReordered, ShapeVolatile, ShapeChangedMeaning, ShapeLookup,
	ShapeRefundFull, ShapeRefundRepeat, ShapeRefundConcurrent, ShapeLateRetry, ShapePauseRetry,
	ShapeResolveFirst, ShapeResolveRace, ShapeRefundPartial}

// Shapes lists every shape the chaos schedule knows, in drawing order.
func Shapes() []string { return append([]string(nil), shapeCatalogue...) }

// chaosShapes are the shapes the config enables, in catalogue order, and
// for each one it does not, why: a run never draws a shape the target
// cannot be sent, and says so.
func chaosShapes(e *scenario.Env) (on []string, off map[string]string) {
	off = map[string]string{}
	body := e.Cfg.Create.Body
	refund := needRefund(e)
	for _, s := range shapeCatalogue {
		why := ""
		switch s {
		case ShapeReordered:
			if !strings.HasPrefix(strings.TrimSpace(body), "{") {
				why = "the create body is not a JSON object, so it has no members to reorder"
			}
		case ShapeVolatile:
			if len(e.Cfg.Create.VolatileFields) == 0 {
				why = "no create.volatile_fields in the config"
			}
		case ShapeChangedMeaning:
			if fields, _ := e.MeaningFields(); len(fields) == 0 {
				why = "the create request has no meaning field idemcheck can change"
			}
		case ShapeLookup:
			if e.Cfg.Lookup == nil {
				why = "no lookup request in the config"
			}
		case ShapeRefundFull, ShapeRefundRepeat, ShapeRefundConcurrent:
			why = refund
		case ShapeRefundPartial:
			why = partialOff(e, refund)
		case ShapeResolveFirst, ShapeResolveRace:
			why = resolveOff(e)
		}
		if why != "" {
			off[s] = why
			continue
		}
		on = append(on, s)
	}
	return on, off
}

// notDrawn says which shapes a run could not draw, and why, shapes that
// share a reason on one line.
func notDrawn(off map[string]string) []string {
	by := map[string][]string{}
	for _, s := range shapeCatalogue {
		if why, ok := off[s]; ok {
			by[why] = append(by[why], s)
		}
	}
	var out []string
	for why, ss := range by {
		out = append(out, fmt.Sprintf("%s not drawn: %s", strings.Join(ss, ", "), why))
	}
	sort.Strings(out)
	return out
}

// shapeTally counts, per shape, how often the schedule drew it and how often
// it really happened: a refund needs a create that succeeded, a follow-up a
// final answer. A drawn shape that never happened is named in the verdict,
// never counted as tested.
type shapeTally struct {
	mu      sync.Mutex
	planned map[string]int
	done    map[string]int
	skipped map[string]string // a drawn shape that did not happen: why, first time
	// byKey counts the shapes that happened by the kind of key they were
	// sent under ("shape on own key"), fields the meaning fields a
	// changed-meaning retry changed, keys the intents run by key kind: the
	// coverage (chaos_coverage.go).
	byKey, fields, keys map[string]int
}

func newShapeTally() *shapeTally {
	return &shapeTally{planned: map[string]int{}, done: map[string]int{}, skipped: map[string]string{},
		byKey: map[string]int{}, fields: map[string]int{}, keys: map[string]int{}}
}

// note records one drawn shape; why is "" when it happened.
func (st *shapeTally) note(shape, why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.planned[shape]++
	if why == "" {
		st.done[shape]++
	} else if st.skipped[shape] == "" {
		st.skipped[shape] = why
	}
}

// summary is the verdict's words: each shape with how often it happened,
// and each one drawn that never did, with why.
func (st *shapeTally) summary() (done, never string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var d, n []string
	for _, s := range shapeCatalogue {
		if st.planned[s] == 0 {
			continue
		}
		if st.done[s] > 0 {
			d = append(d, fmt.Sprintf("%s %d", s, st.done[s]))
			continue
		}
		n = append(n, fmt.Sprintf("%s (drawn %d times: %s)", s, st.planned[s], st.skipped[s]))
	}
	return strings.Join(d, ", "), strings.Join(n, "; ")
}
