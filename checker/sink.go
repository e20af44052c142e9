package checker

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// The stream job's sink (HISTORY.md, op `sink`): a reader records one op per
// (merchant, day) row it found at quiescence, with the row's total and its
// checkpoint barrier tag. The ledger's truth for a key is the sum of that
// merchant's credited payments of that day, each payment counted once however
// many credits it got (a second credit is a double-credit of its own).

// creditDay is the day a credit belongs to: its own input.day when the
// recorder knows it (the ledger's day of the payment), else the UTC date of
// its call.
func creditDay(op history.Op) string {
	if op.Input.Day != "" {
		return op.Input.Day
	}
	return time.Unix(0, op.Call).UTC().Format(time.DateOnly)
}

type sinkKey struct{ merchant, day string }

// sinkDivergence compares every (merchant, day) the sink or the ledger knows
// with the other side, where the file records sink reads at all. A key the
// ledger credited but the sink lacks is a divergence too (a total the restore
// lost), and so is a sink row for a key nothing credited (a total the restore
// should have deleted).
func sinkDivergence(h history.History, f *facts) []Violation {
	reads := map[sinkKey][]int{}
	for i := range h {
		if h[i].Op == history.OpSink && h[i].Output != nil {
			k := sinkKey{h[i].Input.Merchant, h[i].Input.Day}
			reads[k] = append(reads[k], i)
		}
	}
	if !f.hasSinkReads {
		return nil
	}
	truth := map[sinkKey]int64{}
	credits := map[sinkKey][]int{}
	for _, g := range f.creditGroups {
		first := h[g[0]]
		if first.Input.Amount == nil {
			continue
		}
		k := sinkKey{first.Input.Merchant, creditDay(first)}
		truth[k] += *first.Input.Amount
		credits[k] = append(credits[k], g[0])
	}
	keys := map[sinkKey]bool{}
	for k := range reads {
		keys[k] = true
	}
	for k := range truth {
		keys[k] = true
	}
	order := make([]sinkKey, 0, len(keys))
	for k := range keys {
		order = append(order, k)
	}
	sort.Slice(order, func(a, b int) bool {
		if order[a].merchant != order[b].merchant {
			return order[a].merchant < order[b].merchant
		}
		return order[a].day < order[b].day
	})
	var vs []Violation
	for _, k := range order {
		want := truth[k]
		rs := reads[k]
		if len(rs) == 0 {
			vs = append(vs, Violation{Kind: KindSinkDivergence, Merchant: k.merchant, Ops: opsAt(h, credits[k]),
				Message: fmt.Sprintf("sink (%s, %s): no row, ledger truth %d (%d credited payments)", k.merchant, k.day, want, len(credits[k]))})
			continue
		}
		for _, i := range rs {
			got := *h[i].Output.Total
			if got == want {
				continue
			}
			vs = append(vs, Violation{Kind: KindSinkDivergence, Merchant: k.merchant, Ops: opsAt(h, append([]int{i}, credits[k]...)),
				Message: fmt.Sprintf("sink (%s, %s) = %d tag %s, ledger truth %d (%d credited payments)%s",
					k.merchant, k.day, got, tagString(h[i].Output.Tag), want, len(credits[k]), sinkMeta(h[i].Input.Metadata))})
		}
	}
	return vs
}

func tagString(t *int64) string {
	if t == nil {
		return "none"
	}
	return fmt.Sprint(*t)
}

// sinkMeta renders what the reader knew about the job (the checkpoint it
// restored from, its version), sorted so reports are stable.
func sinkMeta(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return " [" + strings.Join(parts, " ") + "]"
}
