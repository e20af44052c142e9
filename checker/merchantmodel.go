package checker

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

// merchantState is one merchant's balance. The file need not say what the
// balance was before it starts, so the base is unknown until given
// (CheckOptions.InitialBalances) or until the first balance read linearized:
// that read fixes base = read - credits before it, and every later read must
// equal base + credits before it. The state is three numbers, so a long
// merchant history costs porcupine nothing per step; "each payment credited
// at most once" is counted exactly outside the model (see invariants.go).
type merchantState struct {
	BaseKnown bool
	Base      int64
	Sum       int64 // credits applied in this history
}

type merchantInput struct {
	Kind   string // credit, balance, or start
	Amount int64  // credit amount, or the balance read
	Index  int
	// Start is the state a stretch begins in. A "start" op placed before
	// every other op carries it, so all stretches share one model and can be
	// checked in one porcupine call.
	Start merchantState
}

// opStart is the kind of a stretch's synthetic first op.
const opStart = "start"

func merchantModel() porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return merchantState{} },
		Step: func(s, in, _ interface{}) (bool, interface{}) {
			st := s.(merchantState)
			m := in.(*merchantInput)
			if m.Kind == opStart {
				return true, m.Start
			}
			if m.Kind == history.OpCredit {
				st.Sum += m.Amount
				return true, st
			}
			if !st.BaseKnown {
				st.BaseKnown, st.Base = true, m.Amount-st.Sum
				return true, st
			}
			return st.Base+st.Sum == m.Amount, st
		},
		Hash: func(s interface{}) uint64 {
			st := s.(merchantState)
			h := uint64(st.Base)*1000003 ^ uint64(st.Sum)
			if st.BaseKnown {
				h ^= 1 << 63
			}
			return h
		},
		DescribeOperation: func(in, _ interface{}) string {
			m := in.(*merchantInput)
			switch m.Kind {
			case opStart:
				return "start: " + describeMerchantState(m.Start)
			case history.OpCredit:
				return fmt.Sprintf("credit +%d", m.Amount)
			}
			return fmt.Sprintf("balance -> %d", m.Amount)
		},
		DescribeState: func(s interface{}) string { return describeMerchantState(s.(merchantState)) },
	}
}

func describeMerchantState(st merchantState) string {
	if !st.BaseKnown {
		return fmt.Sprintf("base ? + %d", st.Sum)
	}
	return fmt.Sprintf("%d (base %d + %d)", st.Base+st.Sum, st.Base, st.Sum)
}
