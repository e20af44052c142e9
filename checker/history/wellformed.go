package history

import (
	"fmt"
	"strings"
)

// wellFormed returns h without the ops the strict reader would refuse, and
// why each was left out. Histories from ReadJSONL are always well formed; one
// built in memory may not be, and the checker must not trip over it. The ops
// are judged on all cores; the refusals come out in history order.
func WellFormed(h History) (History, []string) {
	type refusal struct {
		i   int
		why string
	}
	found := make([][]refusal, ChunkCount(len(h)))
	InChunks(len(h), func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			if e := refuse(&h[i]); e != nil {
				e.Line = i + 1
				found[k] = append(found[k], refusal{i, strings.Replace(e.Error(), "history:", "op ", 1)})
			}
		}
	})
	var bad []int
	var why []string
	for _, rs := range found {
		for _, r := range rs {
			bad = append(bad, r.i)
			why = append(why, r.why)
		}
	}
	if len(bad) == 0 {
		return normalized(h), nil
	}
	kept := make(History, 0, len(h)-len(bad))
	for i := range h {
		if len(bad) > 0 && bad[0] == i {
			bad = bad[1:]
			continue
		}
		kept = append(kept, h[i])
	}
	return normalized(kept), why
}

// refuse is why the strict reader would refuse op, or nil.
func refuse(op *Op) *InputError {
	return first(func() *InputError {
		switch {
		case op.Process == "":
			return missing("process")
		case !knownOp(op.Op):
			return &InputError{Field: "op", Msg: fmt.Sprintf("unknown op %q", op.Op)}
		case op.Return != nil && *op.Return < op.Call:
			return &InputError{Field: "return", Msg: "before call"}
		}
		return nil
	}(), validate(op))
}

// normalized drops outputs of ops that never returned (HISTORY.md: ignored),
// copying h only when there is one.
func normalized(h History) History {
	copied := false
	for i := range h {
		if h[i].Return == nil && h[i].Output != nil {
			if !copied {
				h, copied = append(History(nil), h...), true
			}
			h[i].Output = nil
		}
	}
	return h
}
