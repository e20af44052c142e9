package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// findingIntent is the intent a finding is about: its own, or that of the
// first of its attempts that has one.
func findingIntent(f scenario.Finding, atts []*driver.Attempt) string {
	if f.Intent != "" {
		return f.Intent
	}
	for _, a := range atts {
		if a.Intent != "" {
			return a.Intent
		}
	}
	return ""
}

// picture draws a finding's intent into dir/<check>/<n>-<kind>.html: the
// check's client ops of that intent, the PSP's ops, and the finding's own
// charges (an intent judged by count has none in the history), with the
// finding drawn over its attempts. It returns the path relative to dir, or
// why there is no picture.
func picture(dir string, res scenario.Result, n int, f scenario.Finding, atts []*driver.Attempt) (string, string) {
	intent := findingIntent(f, atts)
	if intent == "" {
		return "", "no picture: the finding names no intent"
	}
	h := res.Ops
	if len(h) == 0 {
		h = res.History
	}
	h = append(history.History(nil), h...)
	type id struct {
		process, op string
		call        int64
		key         string
	}
	have := map[id]bool{}
	for _, op := range h {
		have[id{op.Process, op.Op, op.Call, op.Input.PSPKey}] = true
	}
	for _, c := range f.Charges {
		c.Intent = intent
		if c.Input.PSPKey == "" {
			c.Input.PSPKey = "(no idempotency key)"
		}
		if !have[id{c.Process, c.Op, c.Call, c.Input.PSPKey}] {
			h = append(h, c)
		}
	}
	var note []checker.Note
	lo, hi := int64(0), int64(0)
	for _, a := range atts {
		if lo == 0 || a.Call < lo {
			lo = a.Call
		}
		hi = max(hi, a.Return, a.Call)
	}
	for _, c := range f.Charges {
		if lo == 0 || c.Call < lo {
			lo = c.Call
		}
		hi = max(hi, c.Call)
	}
	if lo != 0 {
		note = append(note, checker.Note{Kind: f.Kind, Message: f.Message, Start: lo, End: hi})
	}
	note = append(note, creditNotes(f)...)
	note = append(note, otherIntentNotes(intent, atts)...)
	rel := filepath.Join(safeName(res.ID), fmt.Sprintf("%d-%s.html", n, safeName(f.Kind)))
	if err := checker.Picture(h, intent, res.Faults, note, f.Kind+": "+f.Message, filepath.Join(dir, rel)); err != nil {
		return "", "no picture: " + err.Error()
	}
	return rel, ""
}

// otherIntentNotes draw the finding's requests of other intents, which the
// intent's own timeline leaves out: the other caller's create whose answer
// this intent received (A6), each with what it was told.
func otherIntentNotes(intent string, atts []*driver.Attempt) []checker.Note {
	var out []checker.Note
	for _, a := range atts {
		if a.Intent == "" || a.Intent == intent {
			continue
		}
		told := "no answer"
		if !a.Unknown() {
			told = strings.TrimSpace(fmt.Sprintf("%d %s %s", a.Status, a.Outcome, a.PaymentID))
		}
		out = append(out, checker.Note{Tag: "other intents' requests", Kind: fmt.Sprintf("%s: %s", a.Caller, told),
			Message: fmt.Sprintf("%s's request %d (%s, intent %s) was answered %s", a.Caller, a.Seq, a.Step, a.Intent, told),
			Start:   a.Call, End: max(a.Return, a.Call)})
	}
	return out
}

// creditNotes put a webhook finding's evidence on the picture's timeline:
// each delivery of the payment's events (what was sent and what the handler
// answered) and the credits the service recorded, read after them.
func creditNotes(f scenario.Finding) []checker.Note {
	var out []checker.Note
	for _, d := range f.Deliveries {
		via := d.Via
		if via == "" {
			via = fmt.Sprintf("the PSP's schedule, attempt %d", d.Attempt)
		}
		answer := fmt.Sprint(d.Status)
		if d.Err != "" {
			answer = "no answer"
		}
		out = append(out, checker.Note{Tag: "webhook deliveries", Kind: fmt.Sprintf("%s %s", d.EventType, answer),
			Message: fmt.Sprintf("%s %s sent by %s, signature %s: the handler answered %s", d.EventType, d.EventID, via, d.Signature, answer),
			Start:   d.Started.UnixNano(), End: d.At.UnixNano()})
	}
	if f.CreditsAt != 0 {
		out = append(out, checker.Note{Tag: "service credits", Kind: fmt.Sprintf("credits %v", f.Credits),
			Message: fmt.Sprintf("the service's credits of the payment, read once they stayed unchanged: %v (the PSP charged %d)", f.Credits, f.Amount),
			Start:   f.CreditsAt, End: f.CreditsAt})
	}
	return out
}
