package survey

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// judgement writes what a maintainer weighs a finding by: whether it
// contradicts the implementation's own documentation or follows from a
// documented behaviour judged by this project's rule, what in the survey's
// own setup it depends on, the setting that makes it pass, the upstream
// reports and the draft of one. It returns what it cannot vouch for.
func (t *Table) judgement(b *strings.Builder, r Row, check string) []Problem {
	var problems []Problem
	var j *Explanation
	var ups []Upstream
	seen := map[string]bool{}
	for i, e := range r.Findings {
		if e.Check != check {
			continue
		}
		if e.Basis != "" {
			j = &r.Findings[i]
		}
		for _, u := range e.Upstream {
			if !seen[u.URL] {
				seen[u.URL] = true
				ups = append(ups, u)
			}
		}
	}
	if j == nil {
		return []Problem{Problem(fmt.Sprintf("%s %s: no entry of findings.yaml says whether it contradicts the docs or follows from a documented behaviour (basis)", r.About.Name, check))}
	}
	switch j.Basis {
	case "docs":
		fmt.Fprintf(b, "- **Against its own documentation**: %s\n", quote(j.Docs, "docs"))
	case "rule":
		fmt.Fprintf(b, "- **A documented behaviour, judged by this project's rule**: the package documents %s; the rule: %s\n",
			quote(j.Docs, "docs"), quote(&Quote{Text: j.Rule.Text, Link: j.Rule.Link}, "rule"))
	}
	if j.Note != "" {
		fmt.Fprintf(b, "- **Depends on the survey's own setup**: %s\n", strings.TrimSpace(j.Note))
	}
	if j.Setting != "" {
		fmt.Fprintf(b, "- **A setting that makes it pass**: %s\n", strings.TrimSpace(j.Setting))
	}
	for _, u := range ups {
		fmt.Fprintf(b, "- **Upstream**: [%s](%s): %s\n", shortURL(u.URL), u.URL, strings.TrimSpace(u.What))
	}
	draft := j.Report
	if t.Root != "" {
		if _, err := os.Stat(filepath.Join(t.Root, draft)); err != nil {
			problems = append(problems, Problem(fmt.Sprintf("%s %s: no upstream report draft %s", r.About.Name, check, draft)))
		}
	}
	fmt.Fprintf(b, "- **Report draft** (to send upstream): [%s](../%s)\n", draft, draft)
	return problems
}

// quote is `"text" ([where](link))`; the project's own rules link from
// docs/, where the table is. A link inside a quoted README ("a
// [lease](#glossary)", idemkit's) points into that README, not into the
// table, so it is quoted as its text.
func quote(q *Quote, label string) string {
	text := strings.Join(strings.Fields(q.Text), " ")
	text = quotedLink.ReplaceAllString(text, "$1")
	return fmt.Sprintf("\"%s\" ([%s](%s))", text, label, q.Link)
}

var quotedLink = regexp.MustCompile(`\[([^\]]+)\]\([^)\s]+\)`)

// shortURL is owner/repo#N for an issue or pull request address.
func shortURL(u string) string {
	p := strings.Split(strings.TrimPrefix(u, "https://github.com/"), "/")
	if len(p) >= 4 && (p[2] == "issues" || p[2] == "pull") {
		return p[0] + "/" + p[1] + "#" + p[3]
	}
	return u
}
