package checker

import (
	"sort"

	"github.com/idemcheck/idemcheck/checker/history"
)

// links ties ops to intents and payments. Clients name their intent; ground
// truth (PSP, ledger, push provider) often knows only the payment id, which
// the create and resolve answers tie back to an intent (HISTORY.md).
type links struct {
	h history.History
	// intent is each op's intent after linking ("" for balance reads and
	// effects nothing ties to an intent or payment).
	intent []string
	// payment is each op's payment id after linking ("" when unknown).
	payment []string
	// owner maps a payment id of namers to the intent whose answer named it
	// first.
	owner map[string]string
	// namers maps a payment id answered to more than one intent to the
	// create/resolve ops that named it, in call order. Only such payments are
	// kept: the cross-caller check needs nothing else.
	namers map[string][]int
	// ids number the intents of intent.
	ids intentIDs
}

// unlinkedPrefix marks a pseudo-intent for a payment no answer named: its
// effects are still checked together (two charges for one payment are two).
const unlinkedPrefix = "payment:"

// owned is the earliest answer naming a payment, and its intent's number
// (-1 for an answer without intent).
type owned struct {
	at int
	id int32
}

// linker is what link builds before it resolves each op: the intents
// numbered so far, each payment's owner, each intent's first payment.
type linker struct {
	*links
	number  map[string]int32
	ownerAt map[string]owned
	// firstAt and firstPid are, by intent number, the earliest answer that
	// named a payment and that payment (-1 and "" for none).
	firstAt  []int
	firstPid []string
}

func (k *linker) intern(in string) int32 {
	id, ok := k.number[in]
	if !ok {
		id = int32(len(k.ids.names))
		k.number[in] = id
		k.ids.names = append(k.ids.names, in)
	}
	return id
}

// unresolved marks an op whose intent number resolve left to the serial
// pass after it.
const unresolved = -2

func link(h history.History) *links {
	l := &links{
		h:       h,
		intent:  make([]string, len(h)),
		payment: make([]string, len(h)),
		owner:   map[string]string{},
		namers:  map[string][]int{},
		ids:     intentIDs{id: make([]int32, len(h))},
	}
	k := &linker{links: l, number: make(map[string]int32, len(h)/4), ownerAt: make(map[string]owned, len(h)/4)}
	// Owners go to the earliest answer (by call, then line) so the result
	// does not depend on line order.
	var answers []int
	earlier := func(a, b int) bool { return h[a].Call < h[b].Call || (h[a].Call == h[b].Call && a < b) }
	for i := range h {
		op := &h[i]
		if op.Op != history.OpCreate && op.Op != history.OpResolve {
			continue
		}
		answers = append(answers, i)
		id := int32(-1)
		if op.Intent != "" {
			id = k.intern(op.Intent)
			for int(id) >= len(k.firstAt) {
				k.firstAt, k.firstPid = append(k.firstAt, -1), append(k.firstPid, "")
			}
		}
		l.ids.id[i] = id
		ids := namedPayments(op)
		for _, pid := range ids.v[:ids.n] {
			if o, ok := k.ownerAt[pid]; !ok || earlier(i, o.at) {
				k.ownerAt[pid] = owned{i, id}
			}
			if id >= 0 && (k.firstAt[id] < 0 || earlier(i, k.firstAt[id])) {
				k.firstAt[id], k.firstPid[id] = i, pid
			}
		}
	}
	// The look-ups below only read the maps built above, so they run on all
	// cores.
	crossedIn := make([]map[string]bool, history.ChunkCount(len(answers)))
	history.InChunks(len(answers), func(c, lo, hi int) {
		for _, i := range answers[lo:hi] {
			ids := namedPayments(&h[i])
			for _, pid := range ids.v[:ids.n] {
				if k.ownerAt[pid].id != l.ids.id[i] {
					if crossedIn[c] == nil {
						crossedIn[c] = map[string]bool{}
					}
					crossedIn[c][pid] = true
				}
			}
		}
	})
	crossed := map[string]bool{}
	for _, c := range crossedIn {
		for pid := range c {
			crossed[pid] = true
			l.owner[pid] = h[k.ownerAt[pid].at].Intent
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
	history.InChunks(len(h), func(_, lo, hi int) { k.resolve(lo, hi) })
	// Intents resolve could not number from an answer or an owner (an
	// effect's own intent, a payment no answer named), in history order.
	for i, id := range l.ids.id {
		if id == unresolved {
			l.ids.id[i] = -1
			if l.intent[i] != "" {
				l.ids.id[i] = k.intern(l.intent[i])
			}
		}
	}
	return l
}

// resolve sets the intent and payment of ops [lo, hi) from their own fields
// and the owners, and the intent's number where an answer or owner gives it.
func (k *linker) resolve(lo, hi int) {
	h, l := k.h, k.links
	for i := lo; i < hi; i++ {
		op := &h[i]
		pid := op.PaymentID
		if pid == "" {
			pid = op.Input.Metadata["payment_id"]
		}
		if pid == "" && op.Output != nil && op.Op != history.OpBalance {
			pid = op.Output.PaymentID
		}
		in, id := op.Intent, int32(unresolved)
		if in != "" && (op.Op == history.OpCreate || op.Op == history.OpResolve) {
			id = l.ids.id[i] // numbered by link
		}
		if in == "" {
			in = op.Input.Metadata["intent"]
		}
		if in == "" && pid != "" {
			if o, ok := k.ownerAt[pid]; ok {
				in, id = h[o.at].Intent, o.id
			} else if op.Op != history.OpBalance {
				in = unlinkedPrefix + pid
			}
		}
		if pid == "" && in != "" {
			first := id
			if first == unresolved {
				var ok bool
				if first, ok = k.number[in]; !ok {
					first = -1
				}
			}
			if first >= 0 && int(first) < len(k.firstPid) {
				pid = k.firstPid[first]
			}
		}
		l.intent[i], l.payment[i], l.ids.id[i] = in, pid, id
	}
}

// namedPayments lists the payment ids a create or resolve names: the one it
// was answered with, and the one it asked about.
// It returns them in a fixed array (no allocation: it runs for every answer).
func namedPayments(op *history.Op) names2 {
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
