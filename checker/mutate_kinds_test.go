package checker

import (
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// newerMutations break the kinds of the ops added after the payment's own:
// refunds, the stream sink, and the shape kinds.
func newerMutations() []mutation {
	return []mutation{
		{"over-refund", []string{KindDoubleRefund}, func(t *testing.T, h history.History) history.History {
			// A refund in full, then the same money again under a fresh key
			// and request: a retry that forgot the first went through.
			refunds := refundsByCharge(h)
			i := nth(t, h, 0, func(op *history.Op) bool {
				rs := refunds[op.Input.ChargeID]
				return op.Op == history.OpRefund && len(rs) == 1 && *op.Input.Amount == chargeAmount(h, op.Input.ChargeID)
			})
			r := h[i]
			r.Process, r.Call, r.Return = "psp-zombie", r.Call+1000, history.Int64(r.Call+1001)
			r.Input.PSPKey, r.Input.Request, r.Output = r.Input.PSPKey+":again", r.Input.Request+":again", &history.Output{RefundID: "re_again"}
			return append(h, r)
		}},
		{"refund-request-twice", []string{KindDoubleRefund}, func(t *testing.T, h history.History) history.History {
			// One partial refund request carried out under a second key:
			// the two stay within the charge, and are still one too many.
			refunds := refundsByCharge(h)
			i := nth(t, h, 0, func(op *history.Op) bool {
				return op.Op == history.OpRefund && len(refunds[op.Input.ChargeID]) == 1 && 2**op.Input.Amount <= chargeAmount(h, op.Input.ChargeID)
			})
			r := h[i]
			r.Process, r.Call, r.Return = "psp-zombie", r.Call+1000, history.Int64(r.Call+1001)
			r.Input.PSPKey, r.Output = r.Input.PSPKey+":retry-a1", &history.Output{RefundID: "re_retry"}
			return append(h, r)
		}},
		{"refund-of-no-charge", []string{KindDoubleRefund}, func(t *testing.T, h history.History) history.History {
			r := h[nth(t, h, 1, isOp(history.OpRefund))]
			r.Process, r.Input.PSPKey, r.Input.ChargeID, r.Output = "psp-zombie", "ghost:refund", "ch_ghost", &history.Output{RefundID: "re_ghost"}
			return append(h, r)
		}},
		{"sink-total-off", []string{KindSinkDivergence}, func(t *testing.T, h history.History) history.History {
			i := nth(t, h, 2, isOp(history.OpSink))
			h[i].Output = &history.Output{Total: history.Int64(*h[i].Output.Total + 1), Tag: h[i].Output.Tag}
			return h
		}},
		{"sink-row-lost", []string{KindSinkDivergence}, func(t *testing.T, h history.History) history.History {
			i := nth(t, h, 3, isOp(history.OpSink))
			return append(h[:i:i], h[i+1:]...)
		}},
		{"sink-row-left-over", []string{KindSinkDivergence}, func(t *testing.T, h history.History) history.History {
			s := h[nth(t, h, 0, isOp(history.OpSink))]
			s.Input.Merchant = "m-declined"
			return append(h, s)
		}},
		{"sink-wrong-day", []string{KindSinkDivergence}, func(t *testing.T, h history.History) history.History {
			// The stream job books a payment by its credit's call date, not
			// the ledger's day: one day's row is short, the other's over.
			i := nth(t, h, 0, func(op *history.Op) bool {
				return op.Op == history.OpCredit && op.Input.Day != "" &&
					hasSinkRow(h, op.Input.Merchant, op.Input.Day) && hasSinkRow(h, op.Input.Merchant, creditDay(history.Op{Call: op.Call}))
			})
			for j := range h {
				if s := &h[j]; s.Op == history.OpSink && s.Input.Merchant == h[i].Input.Merchant {
					d := *h[i].Input.Amount
					if s.Input.Day == h[i].Input.Day {
						d = -d
					}
					s.Output = &history.Output{Total: history.Int64(*s.Output.Total + d), Tag: s.Output.Tag}
				}
			}
			return h
		}},
		{"stale-write-applied", []string{KindStaleWriteApplied}, func(t *testing.T, h history.History) history.History {
			// C2's mutant order-by-arrival: the resent LIKE 1 landed over
			// the acknowledged UNLIKE 2.
			i := nth(t, h, 1, func(op *history.Op) bool { return op.Op == history.OpState && olderValue(h, op) != "" })
			h[i].Output = &history.Output{ShapeOutput: history.ShapeOutput{Value: olderValue(h, &h[i])}}
			return h
		}},
		{"resurrected-after-move", []string{KindEffectResurrected}, func(t *testing.T, h history.History) history.History {
			// C3's mutant condition-on-folder-item: the redelivered parse
			// found no message in Inbox and stored it there again.
			i := nth(t, h, 0, func(op *history.Op) bool { return op.Op == history.OpLocate && onlyMovedOut(h, op) != nil })
			mv := onlyMovedOut(h, &h[i])
			h[i].Output = &history.Output{ShapeOutput: history.ShapeOutput{Folders: history.Folders(mv.Input.To, mv.Input.From)}}
			redelivered := false
			for j := range h {
				if s := &h[j]; s.Op == history.OpStore && s.Input.Message == mv.Input.Message && s.Call > mv.Call {
					s.Output, redelivered = &history.Output{ShapeOutput: history.ShapeOutput{Stored: history.Bool(true)}}, true
				}
			}
			if !redelivered {
				at := *mv.Return + 1
				h = append(h, history.Op{Process: "parser-again", Op: history.OpStore, Call: at, Return: &at,
					Input: history.Input{ShapeInput: history.ShapeInput{Message: mv.Input.Message}}, Output: &history.Output{ShapeOutput: history.ShapeOutput{Stored: history.Bool(true)}}})
			}
			return h
		}},
		{"resurrected-after-delete", []string{KindEffectResurrected}, func(t *testing.T, h history.History) history.History {
			i := nth(t, h, 0, func(op *history.Op) bool { return op.Op == history.OpLocate && deletedBefore(h, op) })
			h[i].Output = &history.Output{ShapeOutput: history.ShapeOutput{Folders: history.Folders("Archive")}}
			return h
		}},
	}
}

// mutationSays are words a mutation's violation messages must hold, where
// the kind alone does not tell which of its rules caught the fault.
var mutationSays = map[string][]string{
	"over-refund":              {"was refunded", "in 2 refunds under 2 PSP keys"},
	"refund-request-twice":     {"was carried out 2 times"},
	"refund-of-no-charge":      {`name charge "ch_ghost", which the history does not have`},
	"sink-row-lost":            {"no row, ledger truth"},
	"sink-row-left-over":       {"(m-declined, 1970-01-01)", "ledger truth 0"},
	"sink-wrong-day":           {"1970-01-01) =", "1970-01-02) ="},
	"stale-write-applied":      {`reads "liked", but the latest acknowledged write is`, "counter 2"},
	"resurrected-after-move":   {"is in Inbox", "after the user moved it Inbox -> Archive", "stored again by a redelivery"},
	"resurrected-after-delete": {"is in Archive", "deleted it"},
}

// refundsByCharge lists each charge's refunds, a replay under one key once.
func refundsByCharge(h history.History) map[string][]int {
	out := map[string][]int{}
	seen := map[string]bool{}
	for i := range h {
		if op := &h[i]; op.Op == history.OpRefund && !seen[op.Input.PSPKey] {
			seen[op.Input.PSPKey] = true
			out[op.Input.ChargeID] = append(out[op.Input.ChargeID], i)
		}
	}
	return out
}

func chargeAmount(h history.History, chargeID string) int64 {
	for i := range h {
		if h[i].Op == history.OpCharge && h[i].Output != nil && h[i].Output.ChargeID == chargeID {
			return *h[i].Input.Amount
		}
	}
	return -1
}

func hasSinkRow(h history.History, merchant, day string) bool {
	for i := range h {
		if h[i].Op == history.OpSink && h[i].Input.Merchant == merchant && h[i].Input.Day == day {
			return true
		}
	}
	return false
}

// olderValue is, for a state read of an item one device wrote, the value of
// a write older than the device's latest acknowledged one that the read may
// not show ("" when there is none): no newer write is unknown at the read.
func olderValue(h history.History, r *history.Op) string {
	var ws []*history.Op
	for i := range h {
		if w := &h[i]; w.Op == history.OpWrite && w.Input.Item == r.Input.Item {
			if len(ws) > 0 && w.Input.Device != ws[0].Input.Device {
				return ""
			}
			ws = append(ws, w)
		}
	}
	var latest *history.Op
	for _, w := range ws {
		if acked(w) && *w.Return < r.Call && (latest == nil || *w.Input.Counter > *latest.Input.Counter) {
			latest = w
		}
	}
	if latest == nil {
		return ""
	}
	older := ""
	for _, w := range ws {
		switch {
		case *w.Input.Counter > *latest.Input.Counter:
			return ""
		case *w.Input.Counter < *latest.Input.Counter && w.Input.Value != latest.Input.Value:
			older = w.Input.Value
		}
	}
	return older
}

// onlyMovedOut is, for a locate read, the one user op of its message when
// that is a move acknowledged before the read (nil otherwise): nothing may
// have moved it back.
func onlyMovedOut(h history.History, r *history.Op) *history.Op {
	var user []*history.Op
	for i := range h {
		if u := &h[i]; (u.Op == history.OpMove || u.Op == history.OpDelete) && u.Input.Message == r.Input.Message {
			user = append(user, u)
		}
	}
	if len(user) != 1 || user[0].Op != history.OpMove || !acked(user[0]) || *user[0].Return >= r.Call {
		return nil
	}
	return user[0]
}

// deletedBefore: the locate read's message was deleted, acknowledged, before it.
func deletedBefore(h history.History, r *history.Op) bool {
	for i := range h {
		if u := &h[i]; u.Op == history.OpDelete && u.Input.Message == r.Input.Message && acked(u) && *u.Return < r.Call {
			return true
		}
	}
	return false
}
