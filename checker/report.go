package checker

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Text renders the result for a person: a summary line, then each violation
// with its ops, one JSON line each (the file's own format, so they can be
// grepped back out of the history).
func (r *Result) Text() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

// TextOf renders the result's summary with only the violations vs.
func (r *Result) TextOf(vs []Violation) string {
	sub := Result{Violations: vs, Unknown: r.Unknown, Invalid: r.Invalid, Ops: r.Ops, Partitions: r.Partitions}
	return sub.Text()
}

// maxListed bounds how many undecided partitions or left-out ops a text or
// JUnit report names one by one; the JSON report lists them all.
const maxListed = 20

// WriteText writes Text to w.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "idemcheck: %s: %d violation(s) in %d ops, %d partitions checked, %d undecided\n",
		r.Verdict(), len(r.Violations), r.Ops, r.Partitions, len(r.Unknown))
	if r.Verdict() == VerdictUndecided {
		b.WriteString("   no violation found, but nothing was proven where a partition is undecided or an op was left out: not a pass\n")
	}
	for i, v := range r.Violations {
		fmt.Fprintf(&b, "\n%d. %s", i+1, v.Kind)
		if v.Intent != "" {
			fmt.Fprintf(&b, " intent=%s", v.Intent)
		}
		if v.Merchant != "" {
			fmt.Fprintf(&b, " merchant=%s", v.Merchant)
		}
		fmt.Fprintf(&b, "\n   %s\n", v.Message)
		for _, op := range v.Ops {
			line, _ := json.Marshal(op)
			fmt.Fprintf(&b, "   %s\n", line)
		}
	}
	for i, why := range r.Invalid {
		if i == maxListed {
			fmt.Fprintf(&b, "\nNOT CHECKED ... and %d more ops (the JSON report lists them)\n", len(r.Invalid)-maxListed)
			break
		}
		fmt.Fprintf(&b, "\nNOT CHECKED %s\n", why)
	}
	for i, u := range r.Unknown {
		if i == maxListed {
			fmt.Fprintf(&b, "\nUNDECIDED ... and %d more partitions (the JSON report lists them)\n", len(r.Unknown)-maxListed)
			break
		}
		why := "porcupine ran out of time"
		if u.Why != "" {
			why = u.Why
		}
		fmt.Fprintf(&b, "\nUNDECIDED %s (%d ops): %s; neither proven linearizable nor illegal\n", u.Name, u.Ops, why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the result as one JSON document: "ok" (no violation),
// "verdict" (OK, VIOLATIONS or UNDECIDED), "decided", and every violation
// and undecided partition.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	out := struct {
		OK        bool    `json:"ok"`
		Verdict   string  `json:"verdict"`
		Decided   bool    `json:"decided"`
		Undecided int     `json:"undecided"`
		Seconds   float64 `json:"seconds"`
		*Result
	}{r.OK(), r.Verdict(), r.Decided(), len(r.Unknown), r.Elapsed.Seconds(), r}
	if out.Violations == nil {
		out.Violations = []Violation{}
	}
	return enc.Encode(out)
}
