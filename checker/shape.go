package checker

import (
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// acked reports whether a shape client op was acknowledged: it returned and
// was answered ok. Anything else may or may not have taken effect.
func acked(op *history.Op) bool {
	return op.Return != nil && op.Output != nil && op.Output.Outcome == history.OutcomeOK
}

// judgeShapes runs the shape rules over h: the writes' findings, then the
// moves'.
func judgeShapes(h history.History) shapeVerdict {
	var all shapeVerdict
	for _, j := range []func(history.History) shapeVerdict{judgeWrites, judgeMoves} {
		v := j(h)
		all.violations = append(all.violations, v.violations...)
		all.unknown = append(all.unknown, v.unknown...)
		all.partitions += v.partitions
	}
	return all
}

// shapeOrder places a shape finding by the item or message it is about
// ("item X" or "message X"): the writes' first, each rule's by name, the
// order judgeShapes finds them in over a whole file.
func shapeOrder(name string) string {
	if strings.HasPrefix(name, "item ") {
		return "0" + name
	}
	return "1" + name
}

// shapeVerdict is what one shape rule found over a whole history.
type shapeVerdict struct {
	violations []Violation
	unknown    []UnknownPartition
	partitions int
}
