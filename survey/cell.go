package survey

import (
	"fmt"
	"sort"
	"strings"
)

// outcome is what one run says of one check: its verdict, the kinds of its
// findings, and why.
type outcome struct {
	verdict  string
	kinds    []string
	why      string
	findings []Finding
}

// key is what must be equal for two runs to agree on a cell. A protocol
// deviation's one finding is of kind "deviation"; naming it again after the
// verdict made the stability line read "deviation deviation 2/5".
func (o outcome) key() string {
	var ks []string
	for _, k := range o.kinds {
		if k != o.verdict {
			ks = append(ks, k)
		}
	}
	return strings.TrimSpace(o.verdict + " " + strings.Join(ks, ","))
}

// outcomeOf reads a check from a run; a run with no report, or without the
// check, says so.
func outcomeOf(r Run, id string) outcome {
	if r.Summary == nil {
		return outcome{verdict: "error", why: "no report: " + firstLine(r.Err)}
	}
	res, ok := r.Summary.Result(id)
	if !ok {
		return outcome{verdict: "not run", why: "the run has no " + id + " (not enabled by the config)"}
	}
	return outcome{verdict: res.Verdict, kinds: res.Kinds(), why: res.Why, findings: res.Findings}
}

// cell is one check over every run of a target.
type cell struct {
	id       string
	outcomes []outcome
	seeds    []uint64
}

// stable reports whether every run agreed.
func (c cell) stable() bool {
	for _, o := range c.outcomes {
		if o.key() != c.outcomes[0].key() {
			return false
		}
	}
	return true
}

// violations counts the runs that found a violation, and the first seed.
func (c cell) violations() (int, uint64) {
	n, first := 0, uint64(0)
	for i, o := range c.outcomes {
		if o.verdict == "violation" {
			if n == 0 {
				first = c.seeds[i]
			}
			n++
		}
	}
	return n, first
}

// tally is "violation 3/5, pass 2/5" for an unstable cell.
func (c cell) tally() string {
	count := map[string]int{}
	for _, o := range c.outcomes {
		count[o.key()]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return count[keys[i]] > count[keys[j]] || count[keys[i]] == count[keys[j]] && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d/%d", strings.TrimSpace(k), count[k], len(c.outcomes)))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
