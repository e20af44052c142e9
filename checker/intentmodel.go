package checker

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"

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
	// ClaimFPs is set when a charge came before any claim although creates
	// were called before the charge returned: the claim that follows must
	// carry one of their fingerprints ("\x00fp1\x00fp2\x00"), since a
	// request called only after the money moved cannot be what moved it.
	ClaimFPs string
	// Amount and Currency are the claim's request; ChAmount and ChCurrency
	// the charge's (currency "" when the file does not say).
	Amount, ChAmount     int64
	Currency, ChCurrency string
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
	add(st.Currency)
	add(st.ChCurrency)
	add(st.ClaimFPs)
	for _, n := range [2]int64{st.Amount, st.ChAmount} {
		h = (h ^ uint64(n)) * 1099511628211
	}
	for _, b := range [3]bool{st.Claimed, st.Void, st.Charged} {
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
	// ClaimFPs (a charge's) lists the fingerprints of the creates that
	// could claim and were called before the charge returned.
	ClaimFPs string
	// Amount and Currency of a create's request or a charge.
	Amount   int64
	Currency string
	// Truth is set when the file records charges at all: only then can
	// "succeeded" be held to a charge.
	Truth bool
	// PSPKey labels a charge in the pictures.
	PSPKey string
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
			if st == s.(intentState) {
				return true, s // unchanged: boxing a copy would allocate
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
	case history.OpCharge:
		switch {
		case st.Void:
			st.Charged = true
			return KindEffectAfterVoid, false
		case st.Charged:
			return KindDoubleCharge, false
		case st.Final == history.OutcomeFailed:
			// The caller was told it failed, then money moved.
			st.Charged = true
			return KindInconsistentAnswer, false
		}
		st.Charged, st.ChAmount, st.ChCurrency = true, in.Amount, in.Currency
		if !st.Claimed {
			st.ClaimFPs = in.ClaimFPs
			return "", true
		}
		return amountStep(st)
	case history.OpCreate:
		return createStep(st, in)
	case history.OpResolve:
		return resolveStep(st, in)
	}
	return "", true
}

func createStep(st *intentState, in *intentInput) (string, bool) {
	if in.Unknown {
		// Always legal, so porcupine may place it last, which is the same as
		// never applied: one deterministic step covers both outcomes. It
		// claims an absent intent, or one charged before any claim when its
		// request may be what was charged.
		if !st.Claimed && !st.Void && (!st.Charged || mayClaim(st, in)) {
			return claim(st, in)
		}
		return "", true
	}
	if st.Void {
		switch in.Outcome {
		case history.OutcomeVoid:
			return "", true
		case history.OutcomeSucceeded:
			return KindEffectAfterVoid, false
		}
		// A void intent must answer void; another answer is wrong but
		// moves no money.
		return KindInconsistentAnswer, false
	}
	if in.Outcome == history.OutcomeVoid {
		if st.Charged {
			return KindEffectAfterVoid, false
		}
		return KindInconsistentAnswer, false
	}
	if !st.Claimed {
		if in.Outcome == history.OutcomeMismatch {
			return KindFalseMismatch, false
		}
		if in.Outcome == history.OutcomeInProgress {
			// "Another request holds this key": whoever holds it claimed,
			// this request did not. Its claim is the holder's own op, which
			// porcupine places at that op's answer; the payment id named
			// and "not final yet" are held to the rest.
			return answerStep(st, in)
		}
		if !mayClaim(st, in) {
			// Money moved for an earlier request; this one, called after,
			// was answered as if it were that request.
			// (Its fingerprint is none of theirs.)
			claim(st, in)
			answerStep(st, in)
			return KindMismatchAccepted, false
		}
		if k, ok := claim(st, in); !ok {
			answerStep(st, in)
			return k, false
		}
	} else if in.FP != st.FP {
		switch in.Outcome {
		case history.OutcomeMismatch:
			return "", true
		case history.OutcomeInProgress:
			// A service that locks before comparing fingerprints answers
			// 409 to the other body while the owner runs: no money moved,
			// nothing accepted. After the owner's final answer it is stale
			// but still constrains nothing (see answerStep).
			if in.Payment != "" && st.Payment != "" && in.Payment != st.Payment {
				return KindInconsistentAnswer, false
			}
			return "", true
		}
		return KindMismatchAccepted, false
	} else if in.Outcome == history.OutcomeMismatch {
		return KindFalseMismatch, false
	}
	return answerStep(st, in)
}

// mayClaim reports whether in's request may be the one a charge made before
// any claim was for.
func mayClaim(st *intentState, in *intentInput) bool {
	return st.ClaimFPs == "" || strings.Contains(st.ClaimFPs, "\x00"+in.FP+"\x00")
}

// claim makes in the claim of st and compares its request with a charge
// made before it.
func claim(st *intentState, in *intentInput) (string, bool) {
	st.Claimed, st.FP, st.ClaimFPs = true, in.FP, ""
	st.Amount, st.Currency = in.Amount, in.Currency
	if st.Charged {
		return amountStep(st)
	}
	return "", true
}

// amountStep compares the charge with the claiming request: the PSP must
// move what was asked, in the currency asked when both name one.
func amountStep(st *intentState) (string, bool) {
	if st.ChAmount != st.Amount || !sameCurrency(st.ChCurrency, st.Currency) {
		return KindWrongAmount, false
	}
	return "", true
}

func resolveStep(st *intentState, in *intentInput) (string, bool) {
	absent := !st.Claimed && !st.Charged
	if in.Unknown {
		if absent {
			st.Void = true
		}
		return "", true
	}
	if absent && !st.Void && (in.Outcome == history.OutcomeProcessing || in.Outcome == history.OutcomeInProgress) {
		// Rule 4 for a resolve: "a request holds this key" claims nothing
		// and voids nothing; the holder's claim is its own create, which
		// porcupine places at that create's answer (a RESOLVE racing the
		// create that charges).
		return answerStep(st, in)
	}
	if st.Void || absent {
		st.Void = true
		switch {
		case in.Outcome == history.OutcomeVoid && st.Charged:
			return KindEffectAfterVoid, false
		case in.Outcome == history.OutcomeVoid:
			return "", true
		}
		return KindInconsistentAnswer, false
	}
	if in.Outcome == history.OutcomeVoid {
		if st.Charged {
			return KindEffectAfterVoid, false
		}
		return KindInconsistentAnswer, false
	}
	return answerStep(st, in)
}

// answerStep checks the status part of an answer to a claimed intent: the
// same payment id every time, processing only while not final,
// succeeded only after the charge, and a final answer never changes.
func answerStep(st *intentState, in *intentInput) (string, bool) {
	if k, ok := paymentStep(st, in); !ok {
		return k, ok
	}
	switch in.Outcome {
	case history.OutcomeInProgress:
		// "Another request holds this key" says nothing of the payment: a
		// middleware that stores its completed record just after answering
		// says it for a moment after the final answer. It constrains no
		// final state; one the client is never told past is the quiescence
		// rule's (staleInProgress), and one told past is a protocol
		// deviation, not a safety finding (idemcheck run's
		// P-stale-in-progress).
	case history.OutcomeProcessing:
		if st.Final != "" {
			return KindInconsistentAnswer, false
		}
	case history.OutcomeSucceeded, history.OutcomeFailed:
		if st.Final != "" && st.Final != in.Outcome {
			return KindInconsistentAnswer, false
		}
		if in.Truth && (in.Outcome == history.OutcomeSucceeded) != st.Charged {
			// Succeeded without a charge, or failed although charged
			// (SCENARIOS A7): the caller was told something untrue.
			return KindInconsistentAnswer, false
		}
		st.Final = in.Outcome
	}
	return "", true
}

// paymentStep holds an answer's payment id to the one answered before.
func paymentStep(st *intentState, in *intentInput) (string, bool) {
	if in.Payment != "" {
		if st.Payment == "" {
			st.Payment = in.Payment
		} else if st.Payment != in.Payment {
			return KindInconsistentAnswer, false
		}
	}
	return "", true
}

func describeIntentInput(in *intentInput) string {
	switch in.Kind {
	case history.OpCharge:
		if in.PSPKey != "" {
			return fmt.Sprintf("charge %d%s key %s", in.Amount, in.Currency, in.PSPKey)
		}
		return fmt.Sprintf("charge %d%s", in.Amount, in.Currency)
	case history.OpCreate:
		if in.Unknown {
			if in.Copies > 1 {
				return fmt.Sprintf("create(%s) -> ? x%d", in.FP, in.Copies)
			}
			return fmt.Sprintf("create(%s) -> ?", in.FP)
		}
		return fmt.Sprintf("create(%s) -> %s %s", in.FP, in.Outcome, in.Payment)
	case history.OpResolve:
		if in.Unknown {
			return "resolve -> ?"
		}
		return fmt.Sprintf("resolve -> %s %s", in.Outcome, in.Payment)
	}
	return in.Kind
}
