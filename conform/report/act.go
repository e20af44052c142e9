package report

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// DocsURL is where the docs the rules cite are read: every rule of every
// report links into docs/SCENARIOS.md (anchors tested in docs/).
const DocsURL = "https://github.com/idemcheck/idemcheck/blob/main/docs/"

// Replay is the exact command that replays one check of the run: the run's
// own command (Rerun, or `idemcheck run --config FILE`), its seed in
// decimal as the run printed it, and --only ID. The final recount is no
// check of its own: "" for it.
func (r *Report) Replay(id string) string {
	if id == "recount" {
		return ""
	}
	base := r.Rerun
	if base == "" {
		base = "idemcheck run --config " + ShellQuote(r.Config)
	}
	return fmt.Sprintf("%s --seed %d --only %s", base, r.Seed, id)
}

// Replays maps every check that fails the run to its replay command.
func (r *Report) Replays() map[string]string {
	out := map[string]string{}
	for _, res := range r.Results {
		if cmd := r.Replay(res.ID); cmd != "" && r.Fails(res) {
			out[res.ID] = cmd
		}
	}
	return out
}

// ShellQuote leaves a plain path as it is and single-quotes anything else.
func ShellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:=@%+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CheckDoc is the section of docs/SCENARIOS.md that documents a check.
func CheckDoc(id string) string { return DocsURL + "SCENARIOS.md#run-" + id }

// RuleLinks maps every result's check to its section of docs/SCENARIOS.md.
func (r *Report) RuleLinks() map[string]string {
	out := map[string]string{}
	for _, res := range r.Results {
		out[res.ID] = CheckDoc(res.ID)
	}
	return out
}

var citeRE = regexp.MustCompile(`SCENARIOS\.md ([A-Z][0-9]+)`)

// ruleHTML renders a rule with every "SCENARIOS.md X" it cites linked to
// X's section, and the rest linked to the check's own section, so every
// rule links to where it is documented.
func ruleHTML(id, rule string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range citeRE.FindAllStringSubmatchIndex(rule, -1) {
		if m[0] > last {
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(CheckDoc(id)), template.HTMLEscapeString(rule[last:m[0]]))
		}
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(DocsURL+"SCENARIOS.md#"+rule[m[2]:m[3]]), template.HTMLEscapeString(rule[m[0]:m[1]]))
		last = m[1]
	}
	if last < len(rule) {
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(CheckDoc(id)), template.HTMLEscapeString(rule[last:]))
	}
	return template.HTML(b.String())
}

// internalHeader names the headers idemcheck's own stacks add for their
// tests (X-Idemcheck-Arrival, -Nearest, -Region): not the target's
// evidence, never shown.
func internalHeader(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), "x-idemcheck-")
}

// clean returns a copy of a without idemcheck's internal headers.
func clean(a *driver.Attempt) *driver.Attempt {
	c := *a
	c.ReqHeaders, c.RespHeaders = dropInternal(a.ReqHeaders), dropInternal(a.RespHeaders)
	return &c
}

func dropInternal(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if !internalHeader(k) {
			out[k] = v
		}
	}
	return out
}

// cleanResults copies the results with their evidence cleaned.
func cleanResults(rs []scenario.Result) []scenario.Result {
	out := make([]scenario.Result, len(rs))
	for i, r := range rs {
		out[i] = r
		out[i].Attempts = make([]*driver.Attempt, len(r.Attempts))
		for j, a := range r.Attempts {
			out[i].Attempts[j] = clean(a)
		}
	}
	return out
}
