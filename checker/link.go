package checker

import "sort"

// links ties ops to intents and payments. Clients name their intent; ground
// truth (PSP, ledger, push provider) often knows only the payment id, which
// the create and resolve answers tie back to an intent (HISTORY.md).
type links struct {
	h History
	// intent is each op's intent after linking ("" for balance reads and
	// effects nothing ties to an intent or payment).
	intent []string
	// payment is each op's payment id after linking ("" when unknown).
	payment []string
	// owner maps a payment id to the intent whose answer named it first.
	owner map[string]string
	// namers maps a payment id answered to more than one intent to the
	// create/resolve ops that named it, in call order. Only such payments are
	// kept: the cross-caller check needs nothing else.
	namers map[string][]int
	// intentPayment maps an intent to the first payment id answered to it.
	intentPayment map[string]string
	// ids number the intents of intent.
	ids intentIDs
}

// unlinkedPrefix marks a pseudo-intent for a payment no answer named: its
// effects are still checked together (two charges for one payment are two).
const unlinkedPrefix = "payment:"

func link(h History) *links {
	l := &links{
		h:             h,
		intent:        make([]string, len(h)),
		payment:       make([]string, len(h)),
		owner:         make(map[string]string, len(h)/4),
		namers:        map[string][]int{},
		intentPayment: make(map[string]string, len(h)/4),
	}
	// Owners go to the earliest answer (by call, then line) so the result
	// does not depend on line order.
	var answers []int
	ownerAt := make(map[string]int, len(h)/4)
	firstAt := make(map[string]int, len(h)/4) // intent -> its earliest naming answer
	earlier := func(a, b int) bool { return h[a].Call < h[b].Call || (h[a].Call == h[b].Call && a < b) }
	for i := range h {
		op := &h[i]
		if op.Op != OpCreate && op.Op != OpResolve {
			continue
		}
		answers = append(answers, i)
		ids := namedPayments(op)
		for _, pid := range ids.v[:ids.n] {
			if j, ok := ownerAt[pid]; !ok || earlier(i, j) {
				ownerAt[pid] = i
			}
			if j, ok := firstAt[op.Intent]; !ok || earlier(i, j) {
				firstAt[op.Intent] = i
				l.intentPayment[op.Intent] = pid
			}
		}
	}
	for pid, i := range ownerAt {
		l.owner[pid] = h[i].Intent
	}
	// The look-ups below only read the maps built above, so they run on all
	// cores.
	crossedIn := make([]map[string]bool, chunkCount(len(answers)))
	inChunks(len(answers), func(k, lo, hi int) {
		for _, i := range answers[lo:hi] {
			ids := namedPayments(&h[i])
			for _, pid := range ids.v[:ids.n] {
				if l.owner[pid] != h[i].Intent {
					if crossedIn[k] == nil {
						crossedIn[k] = map[string]bool{}
					}
					crossedIn[k][pid] = true
				}
			}
		}
	})
	crossed := map[string]bool{}
	for _, c := range crossedIn {
		for pid := range c {
			crossed[pid] = true
		}
	}
	if len(crossed) > 0 {
		for _, i := range answers {
			ids := namedPayments(&h[i])
			for _, pid := range ids.v[:ids.n] {
				if crossed[pid] {
					l.namers[pid] = append(l.namers[pid], i)
				}
			}
		}
		for _, ns := range l.namers {
			sort.SliceStable(ns, func(a, b int) bool { return earlier(ns[a], ns[b]) })
		}
	}
	inChunks(len(h), func(_, lo, hi int) { l.resolve(lo, hi) })
	l.ids = numberIntents(l.intent)
	return l
}

// resolve sets the intent and payment of ops [lo, hi) from their own fields
// and the owners.
func (l *links) resolve(lo, hi int) {
	h := l.h
	for i := lo; i < hi; i++ {
		op := &h[i]
		pid := op.PaymentID
		if pid == "" {
			pid = op.Input.Metadata["payment_id"]
		}
		if pid == "" && op.Output != nil && op.Op != OpBalance {
			pid = op.Output.PaymentID
		}
		in := op.Intent
		if in == "" {
			in = op.Input.Metadata["intent"]
		}
		if in == "" && pid != "" {
			if o, ok := l.owner[pid]; ok {
				in = o
			} else if op.Op != OpBalance {
				in = unlinkedPrefix + pid
			}
		}
		if pid == "" && in != "" {
			pid = l.intentPayment[in]
		}
		l.intent[i], l.payment[i] = in, pid
	}
}

// namedPayments lists the payment ids a create or resolve names: the one it
// was answered with, and the one it asked about.
// It returns them in a fixed array (no allocation: it runs for every answer).
func namedPayments(op *Op) names2 {
	var ids names2
	if op.Output != nil && op.Output.PaymentID != "" {
		ids.add(op.Output.PaymentID)
	}
	if op.PaymentID != "" && (ids.n == 0 || ids.v[0] != op.PaymentID) {
		ids.add(op.PaymentID)
	}
	return ids
}

// names2 is at most two names.
type names2 struct {
	v [2]string
	n int
}

func (a *names2) add(s string) { a.v[a.n] = s; a.n++ }
