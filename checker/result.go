package checker

import (
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// FaultWindow is a fault the harness injected, drawn on the HTML pictures.
type FaultWindow struct {
	Name string `json:"name"`
	// Intent, when set, is the one intent the fault was aimed at: only its
	// picture shows the fault (others show faults that overlap them in time).
	Intent string `json:"intent,omitempty"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
}

// CheckOptions tune Check. The zero value is usable.
type CheckOptions struct {
	// Timeout bounds porcupine's search in one partition (default 10s); a
	// partition that runs out is reported Unknown, apart from violations.
	Timeout time.Duration
	// Workers is how many partitions are checked at once (default GOMAXPROCS).
	Workers int
	// InitialBalances gives merchants' balances before the history. A
	// merchant missing here gets its base from its first balance read.
	InitialBalances map[string]int64
	// Faults are annotated on the HTML pictures.
	Faults []FaultWindow
}

// Violation is one broken rule: its kind, where, and the ops involved.
type Violation struct {
	Kind      string       `json:"kind"`
	Intent    string       `json:"intent,omitempty"`
	Merchant  string       `json:"merchant,omitempty"`
	Ops       []history.Op `json:"ops"`
	Message   string       `json:"message"`
	Partition string       `json:"partition,omitempty"` // the porcupine partition, when one is illegal
}

// UnknownPartition is a partition porcupine could not decide within the
// timeout: neither proven linearizable nor proven illegal.
type UnknownPartition struct {
	Name string `json:"name"`
	Ops  int    `json:"ops"`
	Why  string `json:"why,omitempty"` // set when the reason is not porcupine's timeout
}

// Result is what Check found.
type Result struct {
	Violations []Violation        `json:"violations"`
	Unknown    []UnknownPartition `json:"unknown,omitempty"`
	// Invalid lists ops of an in-memory history left out of the check
	// because the strict reader would refuse them ("op 12: field ...").
	Invalid    []string `json:"invalid,omitempty"`
	Ops        int      `json:"ops"`
	Partitions int      `json:"partitions"`
	// Elapsed is how long Check took.
	Elapsed time.Duration `json:"-"`

	opts   CheckOptions
	failed []*partition // illegal partitions, for the pictures
	parts  []*partition // the partitions a violation is about, to picture them
}

// OK reports whether no violation was found. Undecided partitions are not
// violations; see Decided.
func (r *Result) OK() bool { return len(r.Violations) == 0 }

// Decided reports whether the whole history was checked: every op well
// formed and every partition decided within the timeout.
func (r *Result) Decided() bool { return len(r.Unknown) == 0 && len(r.Invalid) == 0 }

// Verdicts of a result (Verdict).
const (
	VerdictOK         = "OK"         // no violation and everything decided
	VerdictViolations = "VIOLATIONS" // at least one violation
	VerdictUndecided  = "UNDECIDED"  // no violation found, but not everything was decided
)

// Verdict says what the result proves: VIOLATIONS when a rule broke, else
// UNDECIDED when a partition ran out of time or an op was left out (nothing
// was proven there: not a pass), else OK.
func (r *Result) Verdict() string {
	switch {
	case !r.OK():
		return VerdictViolations
	case !r.Decided():
		return VerdictUndecided
	}
	return VerdictOK
}

// Passed reports whether the result proves the history correct: no
// violation and every partition decided.
func (r *Result) Passed() bool { return r.Verdict() == VerdictOK }

// ByKind returns the violations of one kind.
func (r *Result) ByKind(kind string) []Violation {
	var vs []Violation
	for _, v := range r.Violations {
		if v.Kind == kind {
			vs = append(vs, v)
		}
	}
	return vs
}
