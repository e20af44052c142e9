package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// judgeMoves checks conditions on the durable record (C3): once the user's
// move of a message out of folder F is acknowledged, no later locate read may
// find it in F unless a move back into F may have happened in between; once
// a delete is acknowledged, no later read may find it anywhere except where a
// later move may have put it. A message the user never moved or deleted has
// nothing to judge; one with no locate read after an acknowledged move or
// delete is undecided.
func judgeMoves(h history.History) shapeVerdict {
	type msgOps struct{ user, reads, stores []int }
	by := map[string]*msgOps{}
	for i := range h {
		op := &h[i]
		switch op.Op {
		case history.OpMove, history.OpDelete, history.OpLocate, history.OpStore:
		default:
			continue
		}
		m := by[op.Input.Message]
		if m == nil {
			m = &msgOps{}
			by[op.Input.Message] = m
		}
		switch {
		case op.Op == history.OpMove || op.Op == history.OpDelete:
			m.user = append(m.user, i)
		case op.Op == history.OpLocate && op.Return != nil && op.Output != nil:
			m.reads = append(m.reads, i)
		case op.Op == history.OpStore:
			m.stores = append(m.stores, i)
		}
	}
	msgs := make([]string, 0, len(by))
	for k, m := range by {
		if len(m.user) > 0 {
			msgs = append(msgs, k)
		}
	}
	sort.Strings(msgs)
	var v shapeVerdict
	for _, msg := range msgs {
		m := by[msg]
		v.partitions++
		byCall := func(s []int) {
			sort.SliceStable(s, func(a, b int) bool { return h[s[a]].Call < h[s[b]].Call })
		}
		byCall(m.user)
		byCall(m.reads)
		byCall(m.stores)
		decided := false
		for _, ri := range m.reads {
			broken, where, judged := resurrected(h, m.user, &h[ri])
			decided = decided || judged
			if len(broken) > 0 {
				v.violations = append(v.violations, resurrection(h, msg, ri, broken, where, m.stores))
			}
		}
		if !decided {
			v.unknown = append(v.unknown, UnknownPartition{Name: "message " + msg, Ops: len(m.user) + len(m.reads) + len(m.stores),
				Why: "no locate read after an acknowledged move or delete"})
		}
	}
	return v
}

// resurrected returns the acknowledged user ops before read r that r
// contradicts, and the folders r found the message in against them. judged
// is whether any acknowledged user op preceded r.
func resurrected(h history.History, user []int, r *history.Op) (broken []int, where []string, judged bool) {
	in := map[string]bool{}
	for _, f := range *r.Output.Folders {
		in[f] = true
	}
	bad := map[string]bool{}
	for _, ui := range user {
		u := &h[ui]
		if !acked(u) || *u.Return >= r.Call {
			continue
		}
		judged = true
		// Folders a later user move may legally have put the message in.
		back := map[string]bool{}
		for _, vi := range user {
			w := &h[vi]
			if vi != ui && w.Op == history.OpMove && (w.Return == nil || *w.Return > u.Call) && w.Call < *r.Return {
				back[w.Input.To] = true
			}
		}
		var found []string
		for f := range in {
			if back[f] {
				continue
			}
			if u.Op == history.OpDelete || f == u.Input.From {
				found = append(found, f)
			}
		}
		if len(found) > 0 {
			broken = append(broken, ui)
			for _, f := range found {
				bad[f] = true
			}
		}
	}
	for f := range bad {
		where = append(where, f)
	}
	sort.Strings(where)
	return broken, where, judged
}

// resurrection names the read, the user ops it contradicts, and the stores
// that wrote the message after the first of them: the redeliveries whose
// condition passed.
func resurrection(h history.History, msg string, ri int, broken []int, where []string, stores []int) Violation {
	r := &h[ri]
	idx := append([]int{ri}, broken...)
	var said []string
	for _, ui := range broken {
		u := &h[ui]
		if u.Op == history.OpMove {
			said = append(said, fmt.Sprintf("moved it %s -> %s (acknowledged at %d)", u.Input.From, u.Input.To, *u.Return))
		} else {
			said = append(said, fmt.Sprintf("deleted it (acknowledged at %d)", *u.Return))
		}
	}
	since := h[broken[0]].Call
	var by []string
	for _, si := range stores {
		s := &h[si]
		if s.Output != nil && s.Output.Stored != nil && *s.Output.Stored && s.Call > since && s.Call < *r.Return {
			idx = append(idx, si)
			d := s.Process
			if s.Input.Offset != nil {
				d += fmt.Sprintf(" (offset %d)", *s.Input.Offset)
			}
			by = append(by, d)
		}
	}
	text := fmt.Sprintf("message %s is in %s at the read called at %d, after the user %s", msg, strings.Join(where, ", "), r.Call, strings.Join(said, " and "))
	if len(by) > 0 {
		text += "; stored again by a redelivery handled by " + strings.Join(by, ", ")
	}
	return Violation{Kind: KindEffectResurrected, Ops: opsAt(h, idx), Message: text, Partition: "message " + msg}
}
