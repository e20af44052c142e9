package checker

import (
	"fmt"
	"sort"

	"github.com/idemcheck/idemcheck/checker/history"
)

// refundViolations checks the PSP's refunds at quiescence (HISTORY.md): the
// refunds of one charge add up to its amount at most, one refund request is
// carried out once, and, where the file records charges at all, a refund
// names a charge of the file. Refunds are ground truth that all happened, so
// the rule holds in every order and needs no search. A refund logged twice
// under one PSP key (the PSP replaying it) or with one refund id is one
// refund. Each violation is placed by its charge id (combine.go).
func refundViolations(h history.History, l *links, hasCharges bool) []found {
	charges := map[string]int{} // charge id -> its charge op
	for i := range h {
		if h[i].Op == history.OpCharge && h[i].Output != nil && h[i].Output.ChargeID != "" {
			if _, ok := charges[h[i].Output.ChargeID]; !ok {
				charges[h[i].Output.ChargeID] = i
			}
		}
	}
	type group struct {
		refunds []int // distinct refunds, in call order
		keys    map[string]bool
		ids     map[string]bool
	}
	groups := map[string]*group{}
	var ids []string
	for i := range h {
		op := &h[i]
		if op.Op != history.OpRefund {
			continue
		}
		g := groups[op.Input.ChargeID]
		if g == nil {
			g = &group{keys: map[string]bool{}, ids: map[string]bool{}}
			groups[op.Input.ChargeID] = g
			ids = append(ids, op.Input.ChargeID)
		}
		g.refunds = append(g.refunds, i)
	}
	sort.Strings(ids)
	var vs []found
	for _, id := range ids {
		g := groups[id]
		sort.SliceStable(g.refunds, func(a, b int) bool { return h[g.refunds[a]].Call < h[g.refunds[b]].Call })
		var distinct []int
		var total int64
		byRequest := map[string][]int{}
		var requests []string
		for _, i := range g.refunds {
			op := &h[i]
			rid := ""
			if op.Output != nil {
				rid = op.Output.RefundID
			}
			if g.keys[op.Input.PSPKey] || (rid != "" && g.ids[rid]) {
				continue // the same refund logged again
			}
			g.keys[op.Input.PSPKey] = true
			if rid != "" {
				g.ids[rid] = true
			}
			distinct = append(distinct, i)
			total += *op.Input.Amount
			if r := op.Input.Request; r != "" {
				if _, ok := byRequest[r]; !ok {
					requests = append(requests, r)
				}
				byRequest[r] = append(byRequest[r], i)
			}
		}
		intent := l.intent[g.refunds[0]]
		ci, known := charges[id]
		if known && l.intent[ci] != "" {
			intent = l.intent[ci]
		}
		switch {
		case !known && hasCharges:
			vs = append(vs, found{stage: stageRefunds, key: id, v: Violation{Kind: KindDoubleRefund, Intent: intent, Ops: opsAt(h, distinct),
				Message: fmt.Sprintf("%d refund(s) of %d name charge %q, which the history does not have: money returned that was never taken", len(distinct), total, id)}})
			continue
		case known && total > *h[ci].Input.Amount:
			vs = append(vs, found{stage: stageRefunds, key: id, v: Violation{Kind: KindDoubleRefund, Intent: intent, Ops: opsAt(h, append([]int{ci}, distinct...)),
				Message: fmt.Sprintf("charge %s of %d was refunded %d in %d refunds under %d PSP keys", id, *h[ci].Input.Amount, total, len(distinct), len(g.keys))}})
			continue
		}
		for _, r := range requests {
			if rs := byRequest[r]; len(rs) > 1 {
				vs = append(vs, found{stage: stageRefunds, key: id, v: Violation{Kind: KindDoubleRefund, Intent: intent, Ops: opsAt(h, rs),
					Message: fmt.Sprintf("refund request %s of charge %s was carried out %d times under different PSP keys", r, id, len(rs))}})
			}
		}
	}
	return vs
}
