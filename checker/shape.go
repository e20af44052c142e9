package checker

import "github.com/idemcheck/idemcheck/checker/history"

// acked reports whether a shape client op was acknowledged: it returned and
// was answered ok. Anything else may or may not have taken effect.
func acked(op *history.Op) bool {
	return op.Return != nil && op.Output != nil && op.Output.Outcome == history.OutcomeOK
}

// addShapes runs the shape rules over h and adds what they found to r.
func (r *Result) addShapes(h history.History) {
	for _, j := range []func(history.History) shapeVerdict{judgeWrites, judgeMoves} {
		v := j(h)
		r.Violations = append(r.Violations, v.violations...)
		r.Unknown = append(r.Unknown, v.unknown...)
		r.Partitions += v.partitions
	}
}

// shapeVerdict is what one shape rule found over a whole history.
type shapeVerdict struct {
	violations []Violation
	unknown    []UnknownPartition
	partitions int
}
