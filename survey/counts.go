package survey

import (
	"fmt"
	"regexp"
	"strconv"
)

// The judge's messages carry the two counts a maintainer checks first: the
// service's ledger rows and the PSP's charges for the order. A cell shows
// both where they differ, so a double-booking never reads as a second
// charge of the card.
var (
	bookingCounts = regexp.MustCompile(`ledger has (\d+) charges for \d+ intent\(s\) of order \S+ \(the PSP has (-?\d+)`)
	missingCounts = regexp.MustCompile(`^the PSP has (\d+) charge\(s\) for order \S+ .*the service's ledger has none`)
)

// counts are the ledger's rows and the PSP's charges a finding's message
// names; ok is false when it names neither.
func (f Finding) counts() (ledger, psp int, ok bool) {
	if m := bookingCounts.FindStringSubmatch(f.Message); m != nil {
		ledger, _ = strconv.Atoi(m[1])
		psp, _ = strconv.Atoi(m[2])
		return ledger, psp, true
	}
	if m := missingCounts.FindStringSubmatch(f.Message); m != nil {
		psp, _ = strconv.Atoi(m[1])
		return 0, psp, true
	}
	return 0, 0, false
}

// countsText is "ledger 8 rows, PSP 1 charge" for a kind over every run
// (a range where the runs differ), "" when no finding of the kind names
// both counts or they agree.
func countsText(c cell, kind string) string {
	var ls, ps []int
	for _, o := range c.outcomes {
		for _, f := range o.findings {
			if f.Kind != kind {
				continue
			}
			if l, p, ok := f.counts(); ok && l != p {
				ls, ps = append(ls, l), append(ps, p)
			}
		}
	}
	if len(ls) == 0 {
		return ""
	}
	return "ledger " + span(ls, "row") + ", PSP " + span(ps, "charge")
}

// span is "8 rows", or "2-4 rows" over values that differ.
func span(v []int, unit string) string {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	n := fmt.Sprint(lo)
	if hi != lo {
		n += "-" + fmt.Sprint(hi)
	}
	if hi != 1 {
		unit += "s"
	}
	if lo < 0 {
		return "no log"
	}
	return n + " " + unit
}
