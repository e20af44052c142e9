package checker

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// intentState is one payment intent seen sequentially (HISTORY.md "What the
// checker decides"). It is a comparable value so porcupine can cache it.
type intentState struct {
	Claimed bool
	FP      string // fingerprint of the claim
	Payment string // payment id answered so far ("" none yet)
	Void    bool
	Charged bool
	Final   string // "", succeeded or failed
}

// hash is FNV-1a over the fields, without allocating: porcupine hashes a
// state at every step it caches.
func (st intentState) hash() uint64 {
	h := uint64(14695981039346656037)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	add(st.FP)
	add(st.Payment)
	add(st.Final)
	for _, b := range []bool{st.Claimed, st.Void, st.Charged} {
		h *= 1099511628211
		if b {
			h ^= 1
		}
	}
	return h
}

// intentInput is one create, resolve or charge. Unknown marks an op whose
// answer the caller never learned (return null, or an error answer, which
// tells the caller nothing either): it may have taken effect or not.
type intentInput struct {
	Kind    string
	FP      string
	Unknown bool
	Outcome string
	Payment string
	Index   int // index in the history, for reports
	Copies  int // unknown creates folded into this one (see compress)
	// Truth is set when the file records charges at all: only then can
	// "succeeded" be held to a charge.
	Truth bool
}

// relaxed names the violation kinds whose constraints a model run ignores;
// classify uses it to find which constraint a history breaks.
type relaxed map[string]bool

// intentModel is the sequential spec of one intent. relax is nil for the
// real check.
func intentModel(relax relaxed) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return intentState{} },
		Step: func(s, in, _ interface{}) (bool, interface{}) {
			st := s.(intentState)
			kind, ok := intentStep(&st, in.(*intentInput))
			if !ok && !relax[kind] {
				return false, s
			}
			return true, st
		},
		Equal:             func(a, b interface{}) bool { return a.(intentState) == b.(intentState) },
		Hash:              func(s interface{}) uint64 { return s.(intentState).hash() },
		DescribeOperation: func(in, _ interface{}) string { return describeIntentInput(in.(*intentInput)) },
		DescribeState: func(s interface{}) string {
			st := s.(intentState)
			switch {
			case st.Void:
				return fmt.Sprintf("void charged=%t", st.Charged)
			case !st.Claimed:
				return fmt.Sprintf("absent charged=%t", st.Charged)
			}
			return fmt.Sprintf("claimed fp=%s payment=%s charged=%t final=%s", st.FP, st.Payment, st.Charged, st.Final)
		},
	}
}

// intentStep applies in to st. When the step is illegal it returns the kind
// of violation and false; st then holds the state a relaxed model continues
// with.
func intentStep(st *intentState, in *intentInput) (string, bool) {
	switch in.Kind {
	case OpCharge:
		switch {
		case st.Void:
			st.Charged = true
			return KindEffectAfterVoid, false
		case st.Charged:
			return KindDoubleCharge, false
		case st.Final == OutcomeFailed:
			// The caller was told it failed, then money moved.
			st.Charged = true
			return KindInconsistentAnswer, false
		}
		st.Charged = true
		return "", true
	case OpCreate:
		return createStep(st, in)
	case OpResolve:
		return resolveStep(st, in)
	}
	return "", true
}

func createStep(st *intentState, in *intentInput) (string, bool) {
	if in.Unknown {
		// Always legal, so porcupine may place it last, which is the same as
		// never applied: one deterministic step covers both outcomes.
		if !st.Claimed && !st.Void && !st.Charged {
			st.Claimed, st.FP = true, in.FP
		}
		return "", true
	}
	if st.Void {
		switch in.Outcome {
		case OutcomeVoid:
			return "", true
		case OutcomeSucceeded:
			return KindEffectAfterVoid, false
		}
		// A void intent must answer void; another answer is wrong but
		// moves no money.
		return KindInconsistentAnswer, false
	}
	if in.Outcome == OutcomeVoid {
		if st.Charged {
			return KindEffectAfterVoid, false
		}
		return KindInconsistentAnswer, false
	}
	if !st.Claimed {
		if in.Outcome == OutcomeMismatch {
			return KindFalseMismatch, false
		}
		st.Claimed, st.FP = true, in.FP
	} else if in.FP != st.FP {
		if in.Outcome == OutcomeMismatch {
			return "", true
		}
		return KindMismatchAccepted, false
	} else if in.Outcome == OutcomeMismatch {
		return KindFalseMismatch, false
	}
	return answerStep(st, in)
}

func resolveStep(st *intentState, in *intentInput) (string, bool) {
	absent := !st.Claimed && !st.Charged
	if in.Unknown {
		if absent {
			st.Void = true
		}
		return "", true
	}
	if st.Void || absent {
		st.Void = true
		switch {
		case in.Outcome == OutcomeVoid && st.Charged:
			return KindEffectAfterVoid, false
		case in.Outcome == OutcomeVoid:
			return "", true
		}
		return KindInconsistentAnswer, false
	}
	if in.Outcome == OutcomeVoid {
		if st.Charged {
			return KindEffectAfterVoid, false
		}
		return KindInconsistentAnswer, false
	}
	return answerStep(st, in)
}

// answerStep checks the status part of an answer to a claimed intent: the
// same payment id every time, in_progress/processing only while not final,
// succeeded only after the charge, and a final answer never changes.
func answerStep(st *intentState, in *intentInput) (string, bool) {
	if in.Payment != "" {
		if st.Payment == "" {
			st.Payment = in.Payment
		} else if st.Payment != in.Payment {
			return KindInconsistentAnswer, false
		}
	}
	switch in.Outcome {
	case OutcomeInProgress, OutcomeProcessing:
		if st.Final != "" {
			return KindInconsistentAnswer, false
		}
	case OutcomeSucceeded, OutcomeFailed:
		if st.Final != "" && st.Final != in.Outcome {
			return KindInconsistentAnswer, false
		}
		if in.Truth && (in.Outcome == OutcomeSucceeded) != st.Charged {
			// Succeeded without a charge, or failed although charged
			// (SCENARIOS A7): the caller was told something untrue.
			return KindInconsistentAnswer, false
		}
		st.Final = in.Outcome
	}
	return "", true
}

func describeIntentInput(in *intentInput) string {
	switch in.Kind {
	case OpCharge:
		return "charge"
	case OpCreate:
		if in.Unknown {
			if in.Copies > 1 {
				return fmt.Sprintf("create(%s) -> ? x%d", in.FP, in.Copies)
			}
			return fmt.Sprintf("create(%s) -> ?", in.FP)
		}
		return fmt.Sprintf("create(%s) -> %s %s", in.FP, in.Outcome, in.Payment)
	case OpResolve:
		if in.Unknown {
			return "resolve -> ?"
		}
		return fmt.Sprintf("resolve -> %s %s", in.Outcome, in.Payment)
	}
	return in.Kind
}
