package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// judgeWrites checks apply-by-version (C2): every state read of an item must
// show a value some device could legally have left last. Per device, the
// writes are ordered by the device's own journal counter, never by arrival or
// by a clock: the device's latest acknowledged write (highest counter) or a
// later write whose outcome is unknown. Writes of several devices to one item
// are concurrent as far as the counters can tell, so any device's latest may
// be last. A read decides something only when some device had an acknowledged
// write before it; an item never read after one is undecided.
func judgeWrites(h history.History) shapeVerdict {
	type itemOps struct{ writes, reads []int }
	by := map[string]*itemOps{}
	for i := range h {
		op := &h[i]
		if op.Op != history.OpWrite && op.Op != history.OpState {
			continue
		}
		it := by[op.Input.Item]
		if it == nil {
			it = &itemOps{}
			by[op.Input.Item] = it
		}
		if op.Op == history.OpWrite {
			it.writes = append(it.writes, i)
		} else if op.Return != nil && op.Output != nil {
			it.reads = append(it.reads, i)
		}
	}
	items := make([]string, 0, len(by))
	for k, it := range by {
		if len(it.writes) > 0 {
			items = append(items, k)
		}
	}
	sort.Strings(items)
	var v shapeVerdict
	for _, item := range items {
		it := by[item]
		v.partitions++
		for _, s := range [][]int{it.reads, it.writes} {
			sort.SliceStable(s, func(a, b int) bool { return h[s[a]].Call < h[s[b]].Call })
		}
		decided := false
		for _, ri := range it.reads {
			latest, allowed, ok := allowedValues(h, it.writes, &h[ri])
			if !ok {
				continue
			}
			decided = true
			if got := h[ri].Output.Value; !allowed[got] {
				v.violations = append(v.violations, staleWrite(h, item, ri, it.writes, latest))
			}
		}
		if !decided {
			why := "no state read after an acknowledged write"
			if len(it.reads) == 0 {
				why = "no state read at quiescence"
			}
			v.unknown = append(v.unknown, UnknownPartition{Name: "item " + item, Ops: len(it.writes) + len(it.reads), Why: why})
		}
	}
	return v
}

// allowedValues returns, for read r, each device's latest acknowledged write
// before r (by history index) and the values r may show. ok is false when no
// device had an acknowledged write before r: then any value is possible.
func allowedValues(h history.History, writes []int, r *history.Op) (latest map[string]int, allowed map[string]bool, ok bool) {
	latest = map[string]int{}
	for _, i := range writes {
		w := &h[i]
		if acked(w) && *w.Return < r.Call {
			if j, seen := latest[w.Input.Device]; !seen || *w.Input.Counter > *h[j].Input.Counter {
				latest[w.Input.Device] = i
			}
		}
	}
	allowed = map[string]bool{}
	for _, i := range writes {
		w := &h[i]
		if w.Call >= *r.Return {
			continue // invoked after the read ended: not in it
		}
		j, hasAck := latest[w.Input.Device]
		done := acked(w) && *w.Return < r.Call
		switch {
		case !hasAck:
			allowed[w.Input.Value] = true // only unknown writes from this device
		case *w.Input.Counter > *h[j].Input.Counter && !done:
			allowed[w.Input.Value] = true // newer, outcome unknown at the read
		case *w.Input.Counter == *h[j].Input.Counter:
			allowed[w.Input.Value] = true // the latest itself, or a resend of it
		}
	}
	return latest, allowed, len(latest) > 0
}

// staleWrite names the read, each device's latest acknowledged write, and the
// older writes whose value the read shows.
func staleWrite(h history.History, item string, ri int, writes []int, latest map[string]int) Violation {
	r := &h[ri]
	idx := []int{ri}
	devices := make([]string, 0, len(latest))
	for d := range latest {
		devices = append(devices, d)
	}
	sort.Strings(devices)
	var want []string
	for _, d := range devices {
		j := latest[d]
		idx = append(idx, j)
		want = append(want, fmt.Sprintf("device %s counter %d = %q", d, *h[j].Input.Counter, h[j].Input.Value))
	}
	var olds []string
	for _, i := range writes {
		w := &h[i]
		if j, ok := latest[w.Input.Device]; ok && w.Input.Value == r.Output.Value && *w.Input.Counter < *h[j].Input.Counter && w.Call < *r.Return {
			idx = append(idx, i)
			olds = append(olds, fmt.Sprintf("device %s counter %d", w.Input.Device, *w.Input.Counter))
		}
	}
	msg := fmt.Sprintf("item %s reads %q, but the latest acknowledged write is %s", item, r.Output.Value, strings.Join(want, ", "))
	if len(olds) > 0 {
		msg += fmt.Sprintf("; %q is the value of an older write (%s), applied last or the newer one dropped", r.Output.Value, strings.Join(dedup(olds), ", "))
	}
	return Violation{Kind: KindStaleWriteApplied, Ops: opsAt(h, uniq(idx)), Message: msg, Partition: "item " + item}
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func uniq(idx []int) []int {
	seen := map[int]bool{}
	out := idx[:0]
	for _, i := range idx {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}
