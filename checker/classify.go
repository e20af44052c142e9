package checker

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

// intentKinds are the kinds an intent partition can break, in the order the
// classifier tries them.
// When an unknown outcome makes two single kinds fit (did the timed-out
// create with another fingerprint claim or not?), the first is named and the
// message lists the others.
var intentKinds = []string{KindDoubleCharge, KindEffectAfterVoid, KindWrongAmount, KindFalseMismatch, KindMismatchAccepted, KindInconsistentAnswer}

// classifyIntent names what an illegal (or undecided) intent partition broke.
// Porcupine decides legality; the kind comes from rules that are true in every
// order of the ops (two charges are two charges), and when none applies, from
// which single constraint, once relaxed, makes the partition linearizable.
func classifyIntent(h history.History, p *partition, r porcupine.CheckResult, timeout time.Duration) []Violation {
	vs := definiteIntent(h, p)
	if r != porcupine.Illegal {
		return vs
	}
	relax := relaxed{}
	for _, v := range vs {
		relax[v.Kind] = true
	}
	if len(vs) > 0 && porcupine.CheckOperationsTimeout(p.relaxedModel(relax), p.ops, timeout) == porcupine.Ok {
		return vs
	}
	var found *Violation
	var also []string
	for _, k := range intentKinds {
		if relax[k] {
			continue
		}
		try := relaxed{k: true}
		for kk := range relax {
			try[kk] = true
		}
		if found != nil {
			if porcupine.CheckOperationsTimeout(p.relaxedModel(try), p.ops, timeout) == porcupine.Ok {
				also = append(also, k)
			}
			continue
		}
		res, info := porcupine.CheckOperationsVerbose(p.relaxedModel(try), p.ops, timeout)
		if res != porcupine.Ok {
			continue
		}
		idx := firedAt(info, k)
		if len(idx) == 0 {
			idx = p.members
		}
		found = &Violation{
			Kind: k, Intent: p.Intent, Ops: opsAt(h, idx),
			Message: fmt.Sprintf("no order of intent %s's operations fits one sequential payment; it fits once %s is allowed", p.Intent, k),
		}
	}
	if found != nil {
		if len(also) > 0 {
			found.Message += fmt.Sprintf(" (or once %v is: an unknown outcome leaves both open)", also)
		}
		return append(vs, *found)
	}
	if more := severalKinds(h, p, relax, timeout); len(more) > 0 {
		return append(vs, more...)
	}
	return append(vs, Violation{
		Kind: KindInconsistentAnswer, Intent: p.Intent, Ops: opsAt(h, p.members),
		Message: fmt.Sprintf("no order of intent %s's operations fits one sequential payment", p.Intent),
	})
}

// severalKinds handles a partition that breaks two constraints at once (a
// wrong amount charged and answered to another request): relax every kind,
// then put back each one the partition does not need, in intentKinds order.
// It returns one violation per kind left, nil when even that does not fit.
func severalKinds(h history.History, p *partition, base relaxed, timeout time.Duration) []Violation {
	all := relaxed{}
	for k := range base {
		all[k] = true
	}
	for _, k := range intentKinds {
		all[k] = true
	}
	if porcupine.CheckOperationsTimeout(p.relaxedModel(all), p.ops, timeout) != porcupine.Ok {
		return nil
	}
	for _, k := range intentKinds {
		delete(all, k)
		if porcupine.CheckOperationsTimeout(p.relaxedModel(all), p.ops, timeout) != porcupine.Ok {
			all[k] = true
		}
	}
	res, info := porcupine.CheckOperationsVerbose(p.relaxedModel(all), p.ops, timeout)
	if res != porcupine.Ok {
		return nil
	}
	var vs []Violation
	for _, k := range intentKinds {
		if !all[k] || base[k] {
			continue
		}
		idx := firedAt(info, k)
		if len(idx) == 0 {
			idx = p.members
		}
		vs = append(vs, Violation{
			Kind: k, Intent: p.Intent, Ops: opsAt(h, idx),
			Message: fmt.Sprintf("no order of intent %s's operations fits one sequential payment; it breaks %s among other rules", p.Intent, k),
		})
	}
	return vs
}

// firedAt replays the linearization porcupine found under a relaxed model and
// returns the ops where kind's constraint was broken, with the op that made
// the state they broke against (the claim, the void).
func firedAt(info porcupine.LinearizationInfo, kind string) []int {
	lins := info.PartialLinearizationsOperations()
	if len(lins) == 0 || len(lins[0]) == 0 {
		return nil
	}
	best := lins[0][0]
	for _, l := range lins[0] {
		if len(l) > len(best) {
			best = l
		}
	}
	var st intentState
	claim, void, charge := -1, -1, -1
	seen := map[int]bool{}
	var idx []int
	add := func(i int) {
		if i >= 0 && !seen[i] {
			seen[i] = true
			idx = append(idx, i)
		}
	}
	for _, op := range best {
		in := op.Input.(*intentInput)
		before := st
		k, ok := intentStep(&st, in)
		if !ok && k == kind {
			switch kind {
			case KindMismatchAccepted, KindFalseMismatch:
				add(claim)
			case KindEffectAfterVoid:
				add(void)
				add(charge)
			case KindWrongAmount:
				add(claim)
				add(charge)
			}
			add(in.Index)
		}
		if !before.Claimed && st.Claimed {
			claim = in.Index
		}
		if !before.Void && st.Void {
			void = in.Index
		}
		if !before.Charged && st.Charged {
			charge = in.Index
		}
	}
	return idx
}

// definiteIntent applies the rules that hold whatever the order of the ops.
// Each is also a constraint of the model, so they only fire on partitions
// porcupine did not pass.
func definiteIntent(h history.History, p *partition) []Violation {
	var charges, voids, mismatches, answers []int
	acceptedFP := map[string][]int{}
	var fps []string
	fpSeen := map[string]bool{}
	payments := map[string]bool{}
	finals := map[string]bool{}
	var succeeded []int
	for _, i := range p.members {
		op := &h[i]
		if op.Op == history.OpCreate && !fpSeen[op.Input.Fingerprint] {
			fpSeen[op.Input.Fingerprint] = true
			fps = append(fps, op.Input.Fingerprint)
		}
		if op.Op == history.OpCharge {
			charges = append(charges, i)
			continue
		}
		if op.Output == nil {
			continue
		}
		switch o := op.Output.Outcome; o {
		case history.OutcomeVoid:
			voids = append(voids, i)
		case history.OutcomeMismatch:
			mismatches = append(mismatches, i)
		case history.OutcomeSucceeded, history.OutcomeFailed, history.OutcomeProcessing, history.OutcomeInProgress:
			// in_progress accepts nothing: a service that locks before it
			// compares fingerprints answers it to the other body too.
			if op.Op == history.OpCreate && o != history.OutcomeInProgress {
				acceptedFP[op.Input.Fingerprint] = append(acceptedFP[op.Input.Fingerprint], i)
			}
			if o == history.OutcomeSucceeded || o == history.OutcomeFailed {
				finals[o] = true
			}
			if o == history.OutcomeSucceeded {
				succeeded = append(succeeded, i)
			}
		}
		if op.Output.PaymentID != "" {
			payments[op.Output.PaymentID] = true
			answers = append(answers, i)
		}
	}
	v := func(kind, msg string, idx ...[]int) Violation {
		var all []int
		for _, s := range idx {
			all = append(all, s...)
		}
		return Violation{Kind: kind, Intent: p.Intent, Ops: opsAt(h, all), Message: msg}
	}
	var vs []Violation
	if len(charges) > 1 {
		vs = append(vs, v(KindDoubleCharge, fmt.Sprintf("intent %s was charged %d times", p.Intent, len(charges)), charges))
	}
	if w := definiteAmount(h, p, charges); len(w) > 0 {
		vs = append(vs, v(KindWrongAmount, fmt.Sprintf("intent %s was charged %s although every request that could claim it asked %s", p.Intent, money(&h[w[len(w)-1]]), money(&h[w[0]])), w))
	}
	if len(voids) > 0 && len(charges) > 0 {
		vs = append(vs, v(KindEffectAfterVoid, fmt.Sprintf("intent %s was answered void and charged", p.Intent), voids, charges))
	}
	if len(acceptedFP) > 1 {
		var all []int
		keys := make([]string, 0, len(acceptedFP))
		for fp := range acceptedFP {
			keys = append(keys, fp)
		}
		sort.Strings(keys)
		for _, fp := range keys {
			all = append(all, acceptedFP[fp]...)
		}
		vs = append(vs, v(KindMismatchAccepted, fmt.Sprintf("intent %s accepted %d different requests (fingerprints %v)", p.Intent, len(keys), keys), all))
	}
	if len(mismatches) > 0 && len(fps) == 1 {
		vs = append(vs, v(KindFalseMismatch, fmt.Sprintf("intent %s answered mismatch although every request had fingerprint %s", p.Intent, fps[0]), mismatches, acceptedFP[fps[0]]))
	}
	if len(payments) > 1 {
		vs = append(vs, v(KindInconsistentAnswer, fmt.Sprintf("intent %s was answered with %d payment ids %v", p.Intent, len(payments), sortedKeys(payments)), answers))
	} else if finals[history.OutcomeSucceeded] && finals[history.OutcomeFailed] {
		vs = append(vs, v(KindInconsistentAnswer, fmt.Sprintf("intent %s was answered both succeeded and failed", p.Intent), answers))
	} else if len(charges) == 0 {
		for _, s := range succeeded {
			var later []int
			for _, vi := range voids {
				if h[vi].Call > *h[s].Return {
					later = append(later, vi)
				}
			}
			if len(later) > 0 {
				vs = append(vs, v(KindInconsistentAnswer, fmt.Sprintf("intent %s was answered succeeded, then void (not found)", p.Intent), []int{s}, later))
				break
			}
		}
	}
	return vs
}

// definiteAmount returns a claiming create and the charges of other amounts
// when every create that could claim the intent asked one amount and
// currency: then the order does not matter. Creates that name no currency
// ask one currency only among themselves (a create with none and one with
// USD leave the order to the model); a charge is held to the currency only
// when it and the create both name one.
func definiteAmount(h history.History, p *partition, charges []int) []int {
	req := -1
	for _, i := range p.members {
		op := &h[i]
		if op.Op != history.OpCreate || !claims(op) {
			continue
		}
		if req < 0 {
			req = i
			continue
		}
		if *op.Input.Amount != *h[req].Input.Amount || !strings.EqualFold(op.Input.Currency, h[req].Input.Currency) {
			return nil
		}
	}
	if req < 0 {
		return nil
	}
	out := []int{req}
	for _, c := range charges {
		ch := &h[c]
		if *ch.Input.Amount != *h[req].Input.Amount || !sameCurrency(ch.Input.Currency, h[req].Input.Currency) {
			out = append(out, c)
		}
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

// sameCurrency: a charge's currency and its request's agree, ignoring case
// (ISO codes), or one of them names none (HISTORY.md: both are optional,
// and only the amount is compared then).
func sameCurrency(charge, request string) bool {
	return charge == "" || request == "" || strings.EqualFold(charge, request)
}

func money(op *history.Op) string {
	if op.Input.Currency == "" {
		return itoa64(*op.Input.Amount)
	}
	return itoa64(*op.Input.Amount) + " " + op.Input.Currency
}

// classifyMerchant names what an illegal merchant stretch broke. It returns
// nil when the stretch is legal once repeated credits of one payment are
// dropped: the double-credit count already reports those.
func classifyMerchant(h history.History, p *partition, r porcupine.CheckResult, timeout time.Duration) []Violation {
	if r != porcupine.Illegal {
		return nil
	}
	if p.deduped != nil && porcupine.CheckOperationsTimeout(*p.model, p.deduped, timeout) == porcupine.Ok {
		return nil
	}
	init := p.init
	kind, msg := KindInconsistentAnswer, fmt.Sprintf("merchant %s: the balance reads fit no order of its credits", p.Merchant)
	base, known := init.Base, init.BaseKnown
	reads := append([]int(nil), p.members...)
	sort.SliceStable(reads, func(a, b int) bool { return h[reads[a]].Call < h[reads[b]].Call })
	for _, ri := range reads {
		rd := &h[ri]
		if rd.Op != history.OpBalance {
			continue
		}
		lo, hi := init.Sum, init.Sum
		for _, ci := range p.members {
			c := &h[ci]
			if c.Op != history.OpCredit {
				continue
			}
			if retOf(c) < rd.Call {
				lo += *c.Input.Amount
			}
			if c.Call <= retOf(rd) {
				hi += *c.Input.Amount
			}
		}
		got := *rd.Output.Balance
		if !known {
			base, known = got-lo, true
			continue
		}
		if got > base+hi {
			kind, msg = KindDoubleCredit, fmt.Sprintf("merchant %s: balance read %d exceeds the most its credits allow (%d)", p.Merchant, got, base+hi)
			break
		}
		if got < base+lo {
			kind, msg = KindLostEffect, fmt.Sprintf("merchant %s: balance read %d is below the credits already made (%d)", p.Merchant, got, base+lo)
			break
		}
	}
	return []Violation{{Kind: kind, Merchant: p.Merchant, Ops: opsAt(h, p.members), Message: msg}}
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
