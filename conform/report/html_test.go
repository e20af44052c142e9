package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

const (
	intentA = "payments:u1:KA"
	intentB = "payments:u2:KB"
)

func create(process, intent string, call, ret int64, pay string) history.Op {
	return history.Op{Process: process, Op: history.OpCreate, Intent: intent, Call: call, Return: history.Int64(ret),
		Input: history.Input{Fingerprint: "f", Amount: history.Int64(1001), Currency: "USD"}, Output: &history.Output{Outcome: "succeeded", PaymentID: pay}}
}

func charge(key string, call int64) history.Op {
	return history.Op{Process: "psp", Op: history.OpCharge, Call: call, Return: history.Int64(call),
		Input: history.Input{PSPKey: key, Amount: history.Int64(1001)}, Output: &history.Output{ChargeID: "ch_" + key}}
}

// actReport is an A6-like result: the headline finding about intent A (two
// charges), a secondary one about intent B, evidence carrying an internal
// header, and a fault aimed at each intent.
func actReport() *Report {
	const seed = uint64(1)<<53 + 1
	att := func(seq int, intent string, call int64) *driver.Attempt {
		return &driver.Attempt{Seq: seq, Step: "A6: step", Caller: "u1", Intent: intent, Method: "POST", URL: "http://127.0.0.1:1/payments",
			ReqHeaders: map[string]string{"Idempotency-Key": "KA"}, Status: 201, Outcome: "succeeded", Call: call, Return: call + 5,
			RespHeaders: map[string]string{"X-Idemcheck-Arrival": "123", "Content-Type": "application/json"}}
	}
	ops := history.History{create("client-u1-1", intentA, 10, 15, "pay_a"), create("client-u2-2", intentB, 20, 25, "pay_b")}
	return &Report{Config: "my config.yaml", Seed: seed, Started: time.Unix(0, 0).UTC(), Results: []scenario.Result{{
		ID: "A6", Title: "one key from two callers", Level: scenario.Safety, Rule: "SCENARIOS.md A6; payment check: cross-caller",
		Verdict: scenario.Violation, Why: "two findings",
		Findings: []scenario.Finding{
			{Level: scenario.Safety, Kind: "double-charge", Rule: "HISTORY.md one charge per intent (SCENARIOS.md A6)", Message: "headline: two charges for A",
				Intent: intentA, Seqs: []int{1}, Charges: []history.Op{charge("KA-1", 12), charge("KA-2", 13)}},
			{Level: scenario.Safety, Kind: "inconsistent-answer", Rule: "SCENARIOS.md A6 (keys scoped to the caller)", Message: "secondary: about B",
				Seqs: []int{2}},
		},
		Attempts: []*driver.Attempt{att(1, intentA, 10), att(2, intentB, 20)},
		Ops:      ops,
		Faults: []checker.FaultWindow{{Name: "fault-of-A", Intent: intentA, Start: 9, End: 11},
			{Name: "fault-of-B", Intent: intentB, Start: 19, End: 21}},
	}}}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHTMLToActOn: the page opens with one line per violation and the
// replay command; each finding has its own picture, the headline's first,
// drawn from its intent (rows named by process, charges by key and amount,
// that intent's faults only); no internal header shows; rules link to
// their sections.
func TestHTMLToActOn(t *testing.T) {
	dir := t.TempDir()
	r := actReport()
	path, err := WriteHTML(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	page := read(t, path)
	const replay = "idemcheck run --config &#39;my config.yaml&#39; --seed 9007199254740993 --only A6"
	ol := page[strings.Index(page, `<ol id="violations">`):strings.Index(page, "</ol>")]
	if n := strings.Count(ol, "<li>"); n != 2 {
		t.Errorf("the opening list has %d lines, want 2 (one per violation):\n%s", n, ol)
	}
	if !strings.Contains(ol, "headline: two charges for A") || strings.Index(ol, "headline") > strings.Index(ol, "secondary") {
		t.Errorf("the opening list does not start with the headline finding:\n%s", ol)
	}
	if !strings.Contains(ol, replay) || strings.Index(page, "<ol") > strings.Index(page, "<table") {
		t.Errorf("the replay command %q is not in the opening list, before the table", replay)
	}
	if strings.Contains(page, "X-Idemcheck-Arrival") {
		t.Error("the internal X-Idemcheck-Arrival header shows in the evidence")
	}
	if !strings.Contains(page, "Content-Type: application/json") {
		t.Error("the target's own headers are missing from the evidence")
	}
	pics := regexp.MustCompile(`porcupine picture: <a href="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(pics) != 2 || pics[0][1] != filepath.Join("A6", "1-double-charge.html") || pics[1][1] != filepath.Join("A6", "2-inconsistent-answer.html") {
		t.Fatalf("pictures %v, want A6/1-double-charge.html then A6/2-inconsistent-answer.html", pics)
	}
	a, b := read(t, filepath.Join(dir, pics[0][1])), read(t, filepath.Join(dir, pics[1][1]))
	for _, want := range []string{`var idemcheckRows = ["client-u1-1","psp"]`, "charge 1001 key KA-1", "charge 1001 key KA-2", "fault-of-A", "headline: two charges for A"} {
		if !strings.Contains(a, want) {
			t.Errorf("the headline picture lacks %q", want)
		}
	}
	if strings.Contains(a, "fault-of-B") || strings.Contains(a, "client-u2-2") {
		t.Error("the headline picture shows the other intent's rows or fault")
	}
	if !strings.Contains(b, `var idemcheckRows = ["client-u2-2"]`) || !strings.Contains(b, "fault-of-B") || strings.Contains(b, "fault-of-A") {
		t.Error("the secondary picture is not of intent B with its own fault")
	}
	for _, href := range []string{DocsURL + "SCENARIOS.md#A6", CheckDoc("A6")} {
		if !strings.Contains(page, `href="`+href+`"`) {
			t.Errorf("no link to %s", href)
		}
	}
}

// TestReplayInConsoleAndJSON: the console and the JSON carry the exact
// replay command of each failing check, the seed as the run printed it,
// and no internal header.
func TestReplayInConsoleAndJSON(t *testing.T) {
	r := actReport()
	r.Results = append(r.Results, scenario.Result{ID: "A2", Level: scenario.Safety, Verdict: scenario.Pass},
		scenario.Result{ID: "recount", Level: scenario.Safety, Verdict: scenario.Violation})
	var out bytes.Buffer
	Console(&out, r)
	want := "idemcheck run --config 'my config.yaml' --seed 9007199254740993 --only A6"
	if !strings.Contains(out.String(), "replay one failing check:\n  "+want+"\n") || strings.Contains(out.String(), "--only A2") || strings.Contains(out.String(), "--only recount") {
		t.Errorf("console replay lines wrong:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "seed 9007199254740993") {
		t.Error("the console does not print the seed the replay uses")
	}
	p := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(p, r); err != nil {
		t.Fatal(err)
	}
	js := read(t, p)
	if !strings.Contains(js, `"A6": "`+want+`"`) || strings.Contains(js, "--only A2") {
		t.Errorf("the JSON replay map lacks A6's command or has a passing check's")
	}
	if strings.Contains(js, "X-Idemcheck-Arrival") {
		t.Error("the internal header is in the JSON evidence")
	}
	if !strings.Contains(js, `"A6": "`+CheckDoc("A6")+`"`) {
		t.Error("the JSON rule_links lack A6's section")
	}
	if r.Results[0].Attempts[0].RespHeaders["X-Idemcheck-Arrival"] != "123" {
		t.Error("writing the reports changed the run's own evidence")
	}
	r.Rerun = "idemcheck run --reference --mutant x"
	if got := r.Replay("A6"); got != "idemcheck run --reference --mutant x --seed 9007199254740993 --only A6" {
		t.Errorf("Replay with Rerun = %q", got)
	}
}
