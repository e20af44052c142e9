package history

import (
	"strings"
	"unsafe"
)

// strArena keeps the strings a fastLine decodes: their bytes are copied, end
// to end, into blocks of their own, so the file's bytes (mostly keys and
// punctuation) are garbage once the history is read instead of staying
// alive, a third again of a history's memory, for as long as any string of
// any line does. A check of a big history runs close to its memory limit
// (checkcmd), where every megabyte kept is collector work.
type strArena struct{ block []byte }

const arenaBlock = 64 << 10

func (a *strArena) keep(s string) string {
	if len(s) == 0 {
		return ""
	}
	if c := canonical(s); c != "" {
		return c
	}
	if len(s) > cap(a.block)-len(a.block) {
		if len(s) > arenaBlock/4 {
			return strings.Clone(s)
		}
		a.block = make([]byte, 0, arenaBlock)
	}
	start := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[start], len(s))
}

// canonical is the package's own copy of a string most lines repeat (op
// kinds, outcomes, the metadata keys), so those cost no bytes at all.
func canonical(s string) string {
	switch s {
	case OpCreate:
		return OpCreate
	case OpResolve:
		return OpResolve
	case OpCharge:
		return OpCharge
	case OpRefund:
		return OpRefund
	case OpCredit:
		return OpCredit
	case OpNotify:
		return OpNotify
	case OpBalance:
		return OpBalance
	case OutcomeSucceeded:
		return OutcomeSucceeded
	case OutcomeFailed:
		return OutcomeFailed
	case OutcomeProcessing:
		return OutcomeProcessing
	case OutcomeInProgress:
		return OutcomeInProgress
	case "payment_id":
		return "payment_id"
	case "intent":
		return "intent"
	case "USD":
		return "USD"
	}
	return ""
}

// kept reads a string value the op keeps.
func (d *fastLine) kept() (string, bool) {
	s, ok := d.str()
	return d.strs.keep(s), ok
}
