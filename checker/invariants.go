package checker

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// facts are what the whole file records, found in one pass.
type facts struct {
	hasCharges, hasCredits, hasNotifies bool
	// hasSinkReads: some sink op returned (sink.go judges only then).
	hasSinkReads bool
	// creditGroups are credits of one payment: joined by payment (or intent)
	// and by event id, so a second credit counts whatever its event id.
	creditGroups [][]int
	// dupCredit marks every credit after the first of its group.
	dupCredit map[int]bool
}

// whole, when not nil, is what the whole file records of which h is a piece
// (stream.go): a rule that applies "where the file records charges" asks the
// file, not the piece.
func gatherFacts(h history.History, l *links, whole *recorded) *facts {
	f := &facts{dupCredit: map[int]bool{}}
	if whole != nil {
		f.hasCharges, f.hasCredits, f.hasNotifies, f.hasSinkReads = whole.charges, whole.credits, whole.notifies, whole.sinkReads
	}
	var credits []int
	for i := range h {
		switch h[i].Op {
		case history.OpSink:
			f.hasSinkReads = f.hasSinkReads || h[i].Output != nil
		case history.OpCharge:
			f.hasCharges = true
		case history.OpNotify:
			f.hasNotifies = true
		case history.OpCredit:
			f.hasCredits = true
			credits = append(credits, i)
		}
	}
	// Union credits sharing an event id or a payment, by ordinal.
	parent := make([]int32, len(credits))
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	type ckey struct {
		event bool
		name  string
	}
	byKey := make(map[ckey]int32, 2*len(credits))
	for n, i := range credits {
		parent[n] = int32(n)
		keys := [2]ckey{{event: true, name: h[i].Input.EventID}}
		switch {
		case l.payment[i] != "":
			keys[1] = ckey{name: l.payment[i]}
		case l.intent[i] != "":
			// An intent has one payment, so it can stand for it.
			keys[1] = ckey{name: unlinkedPrefix + "intent:" + l.intent[i]}
		}
		for _, k := range keys {
			if k.name == "" {
				continue
			}
			if j, ok := byKey[k]; ok {
				parent[find(int32(n))] = find(j)
			} else {
				byKey[k] = int32(n)
			}
		}
	}
	group := make([]int32, len(credits)) // root ordinal -> group index + 1
	for n, i := range credits {
		r := find(int32(n))
		if group[r] == 0 {
			f.creditGroups = append(f.creditGroups, nil)
			group[r] = int32(len(f.creditGroups))
		}
		g := &f.creditGroups[group[r]-1]
		*g = append(*g, i)
	}
	for _, g := range f.creditGroups {
		if len(g) < 2 {
			continue
		}
		sort.SliceStable(g, func(a, b int) bool { return h[g[a]].Call < h[g[b]].Call })
		for _, i := range g[1:] {
			f.dupCredit[i] = true
		}
	}
	return f
}

// quiescence checks the end state of the file: one credit per charged intent
// and one notification per credited payment (where the file records those at
// all), no payment credited twice (stacked notifications are stacked's).
func quiescence(h history.History, l *links, f *facts) []Violation {
	var vs []Violation
	creditedIntent := make([]bool, len(l.ids.names)) // by intent number
	for _, g := range f.creditGroups {
		first := g[0]
		for _, i := range g {
			if id := l.ids.id[i]; id >= 0 {
				creditedIntent[id] = true
			}
		}
		if len(g) > 1 {
			events := map[string]bool{}
			for _, i := range g {
				events[h[i].Input.EventID] = true
			}
			vs = append(vs, Violation{
				Kind: KindDoubleCredit, Intent: l.intent[first], Merchant: h[first].Input.Merchant, Ops: opsAt(h, g),
				Message: fmt.Sprintf("payment %s credited %d times (event ids %v)", paymentName(l, first), len(g), sortedKeys(events)),
			})
		}
	}
	if f.hasCredits {
		vs = append(vs, uncredited(h, l, creditedIntent)...)
	}
	if f.hasNotifies {
		vs = append(vs, unnotified(h, l, f)...)
	}
	vs = append(vs, failedButCharged(h, l)...)
	return append(vs, staleInProgress(h, l)...)
}

func paymentName(l *links, i int) string {
	if l.payment[i] != "" {
		return l.payment[i]
	}
	if l.intent[i] != "" {
		return "of intent " + l.intent[i]
	}
	return "(unnamed)"
}

// uncredited finds intents that were charged, not refunded, and never
// credited.
func uncredited(h history.History, l *links, credited []bool) []Violation {
	refunded := make([]bool, len(l.ids.names))
	var charged []int32 // intents in the order of their first charge
	seen := make([]bool, len(l.ids.names))
	for i, id := range l.ids.id {
		switch {
		case id < 0:
		case h[i].Op == history.OpRefund:
			refunded[id] = true
		case h[i].Op == history.OpCharge && !seen[id]:
			seen[id] = true
			charged = append(charged, id)
		}
	}
	var charges [][]int // built only when some intent is uncredited
	var vs []Violation
	for _, id := range charged {
		if credited[id] || refunded[id] {
			continue
		}
		if charges == nil {
			charges = l.ids.group(h, func(op *history.Op) bool { return op.Op == history.OpCharge })
		}
		in := l.ids.names[id]
		vs = append(vs, Violation{
			Kind: KindLostEffect, Intent: in, Ops: opsAt(h, charges[id]),
			Message: fmt.Sprintf("intent %s was charged but never credited", in),
		})
	}
	return vs
}

// unnotified finds credited payments no notification was shown for.
func unnotified(h history.History, l *links, f *facts) []Violation {
	// A notify or credit knows its payment by id (or replace id) or by
	// intent; either way is enough to match.
	byPayment := map[string]bool{}
	byIntent := make([]bool, len(l.ids.names)) // by intent number
	for i := range h {
		if h[i].Op != history.OpNotify || h[i].Output == nil || h[i].Output.Shown == nil || *h[i].Output.Shown < 1 {
			continue
		}
		if l.payment[i] != "" {
			byPayment[l.payment[i]] = true
		}
		if id := l.ids.id[i]; id >= 0 {
			byIntent[id] = true
		}
		if h[i].Input.ReplaceID != "" {
			byPayment[h[i].Input.ReplaceID] = true
		}
	}
	var vs []Violation
	for _, g := range f.creditGroups {
		i := g[0]
		if (l.payment[i] != "" && byPayment[l.payment[i]]) || (l.ids.id[i] >= 0 && byIntent[l.ids.id[i]]) {
			continue
		}
		vs = append(vs, Violation{
			Kind: KindLostEffect, Intent: l.intent[i], Merchant: h[i].Input.Merchant, Ops: opsAt(h, g),
			Message: fmt.Sprintf("payment %s was credited but never notified", paymentName(l, i)),
		})
	}
	return vs
}

// stacked finds a recipient with more notifications on screen than the
// payments it could have been notified of: the same payment shown twice. A
// notify counts toward the payments known at another's return when it was
// called by then, which is the most generous reading of concurrent pushes.
// Each violation is placed by recipient and payment, the order it is found
// in, so the violations of pieces of a file merge as the whole file's would
// (a violation may name no intent: combine.go).
func stacked(h history.History, l *links) []found {
	// The notifies by recipient, then call, then line: one sort of one list,
	// not a map of a list per recipient.
	type notify struct {
		recipient string
		call      int64
		i         int
	}
	var all []notify
	for i := range h {
		if h[i].Op == history.OpNotify && h[i].Output != nil {
			all = append(all, notify{h[i].Input.Recipient, h[i].Call, i})
		}
	}
	// One comparison of the names per pair, and no reflection: this sort
	// was a sixth of the search-free checks' CPU in a 1M-op profile.
	slices.SortFunc(all, func(x, y notify) int {
		if c := strings.Compare(x.recipient, y.recipient); c != 0 {
			return c
		}
		if c := cmp.Compare(x.call, y.call); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	var vs []found
	ns := make([]int, 0, 16)
	for lo := 0; lo < len(all); {
		r := all[lo].recipient
		ns = ns[:0]
		for ; lo < len(all) && all[lo].recipient == r; lo++ {
			ns = append(ns, all[lo].i)
		}
		if s := h[ns[0]].Output.Shown; len(ns) == 1 && (s == nil || *s <= 1) {
			continue // one notify showing one: nothing can be stacked
		}
		bad := map[string][]int{} // payment -> offending notifies
		var order []string
		alerts := make(map[string][]int, 1)
		sofar := make(map[string]bool, len(ns))
		for k, i := range ns {
			pay := notifyPayment(h, l, i)
			if a := h[i].Output.Alert; a != nil && *a {
				alerts[pay] = append(alerts[pay], i)
			}
			sofar[pay] = true
			distinct := len(sofar)
			var ahead map[string]bool // most notifies overlap none: no map
			for _, j := range ns[k+1:] {
				if h[j].Call > *h[i].Return {
					break
				}
				if p := notifyPayment(h, l, j); !sofar[p] && !ahead[p] {
					if ahead == nil {
						ahead = map[string]bool{}
					}
					ahead[p] = true
					distinct++
				}
			}
			if h[i].Output.Shown != nil && *h[i].Output.Shown > distinct {
				if _, ok := bad[pay]; !ok {
					order = append(order, pay)
				}
				bad[pay] = append(bad[pay], i)
			}
		}
		for pay, as := range alerts {
			// SCENARIOS E1: one repeat alert is unavoidable, a third is not.
			if len(as) > 2 {
				if _, ok := bad[pay]; !ok {
					order = append(order, pay)
				}
				bad[pay] = append(bad[pay], as...)
			}
		}
		sort.Strings(order)
		for _, pay := range order {
			idx := dedupInts(bad[pay])
			max := 0
			for _, i := range idx {
				if s := h[i].Output.Shown; s != nil && *s > max {
					max = *s
				}
			}
			vs = append(vs, found{stage: stageStacked, key: r + "\x00" + pay, v: Violation{
				Kind: KindNotificationStacked, Intent: l.intent[idx[0]], Ops: opsAt(h, idx),
				Message: fmt.Sprintf("recipient %s: payment %s stacked (up to %d on screen, %d alerts)", r, pay, max, len(alerts[pay])),
			}})
		}
	}
	return vs
}

func notifyPayment(h history.History, l *links, i int) string {
	switch {
	case l.payment[i] != "":
		return l.payment[i]
	case h[i].Input.ReplaceID != "":
		return h[i].Input.ReplaceID
	}
	return l.intent[i]
}

func dedupInts(s []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// crossIntentAnswers finds payment ids answered to more than one intent: an
// intent's scope is endpoint:caller:key, so a payment of another scope is
// another caller's answer (SCENARIOS A6).
func crossIntentAnswers(h history.History, l *links) []Violation {
	pids := make([]string, 0, len(l.namers))
	for pid := range l.namers {
		pids = append(pids, pid)
	}
	sort.Strings(pids)
	var vs []Violation
	for _, pid := range pids {
		owner := l.owner[pid]
		var ownerOps []int
		others := map[string][]int{}
		var names []string
		for _, i := range l.namers[pid] {
			in := h[i].Intent
			if in == owner {
				ownerOps = append(ownerOps, i)
				continue
			}
			if _, ok := others[in]; !ok {
				names = append(names, in)
			}
			others[in] = append(others[in], i)
		}
		for _, in := range names {
			vs = append(vs, Violation{
				Kind: KindInconsistentAnswer, Intent: in, Ops: opsAt(h, append(ownerOps[:1:1], others[in]...)),
				Message: fmt.Sprintf("intent %s was answered with payment %s of intent %s (another caller's answer)", in, pid, owner),
			})
		}
	}
	return vs
}
