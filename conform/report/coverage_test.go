package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// coverageRun: 3 safety checks ran, 9 did not (7 for want of a webhook
// section, 2 of two instances), plus a protocol vector and the recount,
// which the safety count leaves out.
func coverageRun() *Report {
	r := &Report{Config: "idemcheck.yaml", Seed: 7}
	for _, id := range []string{"A2", "A5", "A1"} {
		r.Results = append(r.Results, scenario.Result{ID: id, Level: scenario.Safety, Verdict: scenario.Pass, Why: "ok"})
	}
	hook := "needs a webhook section: the path of the service's webhook handler"
	for _, id := range []string{"W-dup", "W-concurrent", "W-lost-ack", "W-kill", "W-order", "W-early", "W-forged"} {
		r.Results = append(r.Results, scenario.Result{ID: id, Level: scenario.Safety, Verdict: scenario.NA, Why: hook})
	}
	two := "needs two instances (target.instances or two base_urls)"
	for _, id := range []string{"S-replicas", "A4"} {
		r.Results = append(r.Results, scenario.Result{ID: id, Level: scenario.Safety, Verdict: scenario.NA, Why: two})
	}
	r.Results = append(r.Results, scenario.Result{ID: "P-replay", Level: scenario.Protocol, Verdict: scenario.NA, Why: "x"},
		scenario.Result{ID: "recount", Level: scenario.Safety, Verdict: scenario.Pass, Why: "ok"})
	return r
}

// TestHeadlineSaysWhatWasProven: a PASS says how many safety checks ran
// of how many, and the console's last lines, the HTML headline and the
// JSON summary group those that did not by the config change that would
// run them, each linked to its docs/CONFIG.md section (issue 50).
func TestHeadlineSaysWhatWasProven(t *testing.T) {
	r := coverageRun()
	const head = "PASS: 3 of 12 safety checks ran; 9 did not run, for want of 2 config change(s)"
	c := r.Coverage()
	if c.Headline != head || c.SafetyRan != 3 || c.SafetyTotal != 12 || len(c.NotRun) != 2 ||
		len(c.NotRun[0].Checks) != 7 || len(c.NotRun[1].Checks) != 2 ||
		c.NotRun[0].Doc != DocsURL+"CONFIG.md#webhook-the-services-handler-of-the-psps-events-optional" ||
		c.NotRun[1].Doc != DocsURL+"CONFIG.md#target-where-the-service-is" {
		t.Fatalf("coverage %+v", c)
	}
	var b bytes.Buffer
	Console(&b, r)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := lines[len(lines)-4:]
	if last[3] != "verdict: "+head || !strings.HasPrefix(strings.TrimSpace(last[1]), "7: needs a webhook section") ||
		!strings.Contains(last[2], "2: needs two instances (target.instances or two base_urls) (S-replicas, A4) "+DocsURL+"CONFIG.md#target-where-the-service-is") {
		t.Errorf("console's last lines:\n%s", strings.Join(last, "\n"))
	}
	dir := t.TempDir()
	path, err := WriteHTML(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(path)
	for _, want := range []string{"<h1 id=\"headline\">idemcheck run: " + head + "</h1>", "<li><b>7</b>: needs a webhook section", "CONFIG.md#webhook-the-services-handler-of-the-psps-events-optional"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	jp := filepath.Join(dir, "r.json")
	if err := WriteJSON(jp, r); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(jp)
	var got struct{ Summary Coverage }
	if err := json.Unmarshal(raw, &got); err != nil || got.Summary.Headline != head || got.Summary.SafetyRan != 3 || len(got.Summary.NotRun) != 2 {
		t.Errorf("JSON summary %+v (%v)", got.Summary, err)
	}
	r.Results[0].Verdict = scenario.Violation
	if h := r.Coverage().Headline; !strings.HasPrefix(h, "FAIL: 3 of 12 safety checks ran; 1 violation(s), 0 inconclusive, 0 error(s)") {
		t.Errorf("failing headline %q", h)
	}
}

// TestEveryNeedLinksToAConfigSection: each anchor the not-run groups link
// is a heading of docs/CONFIG.md (GitHub's slug of it).
func TestEveryNeedLinksToAConfigSection(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "CONFIG.md"))
	if err != nil {
		t.Fatal(err)
	}
	slugs := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, m := range regexp.MustCompile(`(?m)^#{2,3} (.+)$`).FindAllStringSubmatch(string(b), -1) {
		slugs[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")] = true
	}
	for _, s := range configSections {
		if !slugs[s.anchor] {
			t.Errorf("%q links #%s, no heading of docs/CONFIG.md", s.word, s.anchor)
		}
	}
}
