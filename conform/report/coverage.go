package report

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// Coverage is how much of the safety catalogue a run proved: a PASS that
// ran 8 safety checks of 26 must say so in its headline, and name the
// config change that would run each of the others.
type Coverage struct {
	// Verdict is PASS or FAIL (the exit code's).
	Verdict string `json:"verdict"`
	// Headline is the run's last line: the verdict and how many safety
	// checks ran.
	Headline string `json:"headline"`
	// SafetyRan counts the safety checks that ran (any verdict but n/a);
	// SafetyTotal those the run had (the recount not counted).
	SafetyRan   int           `json:"safety_ran"`
	SafetyTotal int           `json:"safety_total"`
	NotRun      []NotRunGroup `json:"safety_not_run,omitempty"`
}

// NotRunGroup is the safety checks one config change would run.
type NotRunGroup struct {
	// Change is what the config lacks, as the checks' n/a reason says it.
	Change string `json:"change"`
	// Doc is the section of docs/CONFIG.md that describes the change.
	Doc    string   `json:"doc"`
	Checks []string `json:"checks"`
}

// configSections name the docs/CONFIG.md section (GitHub's anchor of its
// heading) of what an n/a reason asks for, most specific first.
var configSections = []struct{ word, anchor string }{
	{"webhook section", "webhook-the-services-handler-of-the-psps-events-optional"},
	{"consumer section", "consumer-the-services-kafka-consumer-optional"},
	{"ledger.credits", "ledgercredits-the-merchant-credits-of-one-payment"},
	{"consumer.credits", "consumer-the-services-kafka-consumer-optional"},
	{"capture request", "authorize-and-capture-the-authorizecapture-flow"},
	{"refund request", "lookup-refund-and-resolve-optional-requests"},
	{"callers", "callers"},
	{"Toxiproxy", "toxiproxy-the-services-own-dependencies-optional"},
	{"links", "toxiproxy-the-services-own-dependencies-optional"},
	{"retry_horizon", "run-settings"},
	{"key_window", "run-settings"},
	{"fakepsp", "effects-how-idemcheck-sees-money-move"},
	{"PSP front", "effects-how-idemcheck-sees-money-move"},
	{"target.", "target-where-the-service-is"},
	{"instances", "target-where-the-service-is"},
}

// ConfigDoc is the docs/CONFIG.md section of a check's n/a reason ("" when
// none is named).
func ConfigDoc(why string) string {
	for _, s := range configSections {
		if strings.Contains(why, s.word) {
			return DocsURL + "CONFIG.md#" + s.anchor
		}
	}
	return ""
}

// Coverage counts the safety checks that ran and groups those that did not
// by their reason, in the run's order.
func (r *Report) Coverage() Coverage {
	c := Coverage{Verdict: "PASS"}
	if r.Exit() != 0 {
		c.Verdict = "FAIL"
	}
	at := map[string]int{}
	for _, res := range r.Results {
		if res.Level != scenario.Safety || res.ID == "recount" {
			continue
		}
		c.SafetyTotal++
		if res.Verdict != scenario.NA {
			c.SafetyRan++
			continue
		}
		i, ok := at[res.Why]
		if !ok {
			i = len(c.NotRun)
			at[res.Why] = i
			c.NotRun = append(c.NotRun, NotRunGroup{Change: res.Why, Doc: ConfigDoc(res.Why)})
		}
		c.NotRun[i].Checks = append(c.NotRun[i].Checks, res.ID)
	}
	c.Headline = fmt.Sprintf("%s: %d of %d safety checks ran", c.Verdict, c.SafetyRan, c.SafetyTotal)
	if c.Verdict == "FAIL" {
		n := r.Counts()
		c.Headline += fmt.Sprintf("; %d violation(s), %d inconclusive, %d error(s)", n[scenario.Violation], n[scenario.Inconclusive], n[scenario.Errored])
	}
	if len(c.NotRun) > 0 {
		c.Headline += fmt.Sprintf("; %d did not run, for want of %d config change(s)", c.SafetyTotal-c.SafetyRan, len(c.NotRun))
	}
	return c
}

// NotRunLines are the groups of Coverage as the console prints them.
func (c Coverage) NotRunLines() []string {
	var out []string
	for _, g := range c.NotRun {
		l := fmt.Sprintf("%d: %s (%s)", len(g.Checks), g.Change, strings.Join(g.Checks, ", "))
		if g.Doc != "" {
			l += " " + g.Doc
		}
		out = append(out, l)
	}
	return out
}
