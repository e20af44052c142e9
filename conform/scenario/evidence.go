package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// LedgerRow is one charge in the service's own ledger.
type LedgerRow struct {
	OrderID string
	Amount  int64
}

// LedgerReader reads the service's own charges of one order.
type LedgerReader interface {
	Rows(ctx context.Context, orderID string) ([]LedgerRow, error)
}

func intentsOf(e *Env, ins []Intent) []string {
	var out []string
	for _, in := range ins {
		n := e.D.Intent(in.Caller, in.Key)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// answeredWithPayment: some create of these intents got a final answer
// naming a payment (succeeded, or a decline the service stands by).
func answeredWithPayment(atts []*driver.Attempt, names []string) bool {
	for _, a := range atts {
		if slices.Contains(names, a.Intent) && a.PaymentID != "" &&
			(a.Outcome == history.OutcomeSucceeded || a.Outcome == history.OutcomeFailed) {
			return true
		}
	}
	return false
}

// voided says whether the intents' creates were answered, and every final
// answer was void (the key a RESOLVE voided).
func voided(atts []*driver.Attempt, names []string) bool {
	n := 0
	for _, a := range atts {
		if !slices.Contains(names, a.Intent) || !Final(a) {
			continue
		}
		if a.Outcome != history.OutcomeVoid {
			return false
		}
		n++
	}
	return n > 0
}

func succeededAny(atts []*driver.Attempt, names []string) bool {
	for _, a := range atts {
		if slices.Contains(names, a.Intent) && a.Outcome == history.OutcomeSucceeded {
			return true
		}
	}
	return false
}

// whyNoAnswer puts the answers in the user's words with the likely cause.
func whyNoAnswer(e *Env, atts []*driver.Attempt, names []string) string {
	var mine []*driver.Attempt
	for _, a := range atts {
		if slices.Contains(names, a.Intent) {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 {
		return "no create was sent"
	}
	sum := Summarize(mine)
	if unserved(mine) {
		return fmt.Sprintf("the service answered %d to every create (%s): does it serve %s %s (create.method, create.path)? an answer to a path or method it lacks is no answer to the request",
			mine[0].Status, sum, e.Cfg.Create.Method, e.Cfg.Create.Path)
	}
	allErr, allGone, ids := true, true, false
	for _, a := range mine {
		allErr = allErr && !a.Unknown() && a.Outcome == history.OutcomeError
		allGone = allGone && a.Unknown()
		ids = ids || a.PaymentID != ""
	}
	switch {
	case allGone:
		return fmt.Sprintf("the service never answered (%s)", sum)
	case allErr:
		return fmt.Sprintf("every keyed request was answered with an error (%s): does the service reject idemcheck's keys (%s)? see create.key.format; or do outcomes.rules miss its success answer?",
			sum, keyExample(e))
	case !ids:
		return fmt.Sprintf("no answer named a payment id (%s): is outcomes.payment_id (%q) the right field?", sum, e.Cfg.Outcomes.PaymentID)
	}
	return fmt.Sprintf("no answer was final (%s) within converge_within %s", sum, e.Cfg.ConvergeD())
}

// unserved: every answer is a 404 or 405, what a server says of a path or
// method it does not serve, not of the request.
func unserved(atts []*driver.Attempt) bool {
	for _, a := range atts {
		if a.Unknown() || !NotServed(a) {
			return false
		}
	}
	return len(atts) > 0
}

// NotServed: a 404 or 405, the answer of a server to a path or method it
// lacks, which no protocol vector may take for an answer to its request.
func NotServed(a *driver.Attempt) bool {
	return a != nil && !a.Unknown() && (a.Status == 404 || a.Status == 405)
}

func keyExample(e *Env) string {
	k := e.Cfg.Create.Key
	if k.Format == "random" {
		return fmt.Sprintf("%d characters, prefix %q", k.Length, k.Prefix)
	}
	return "UUID v4"
}

func ChargeWords(cs []history.Op) string {
	if len(cs) == 0 {
		return "0 charges"
	}
	var parts []string
	for _, c := range cs {
		amt := int64(0)
		if c.Input.Amount != nil {
			amt = *c.Input.Amount
		}
		parts = append(parts, fmt.Sprint(amt))
	}
	word := "charge"
	if len(cs) > 1 {
		word = "charges"
	}
	return fmt.Sprintf("%d %s of %s", len(cs), word, strings.Join(parts, ", "))
}

// refundedAmounts is how much the PSP refunded of each charge, by its id.
func refundedAmounts(e *Env) map[string]int64 {
	out := map[string]int64{}
	if e.PSP == nil {
		return out
	}
	for _, r := range e.refunds() {
		if r.Input.Amount != nil {
			out[r.Input.ChargeID] += *r.Input.Amount
		}
	}
	return out
}

// refundedWhole says whether refunds of c sum to its amount: as the
// checker's failed-but-charged rule (converge.go) has it, a buyer refunded
// in part still paid.
func refundedWhole(c history.Op, refunded map[string]int64) bool {
	return c.Output != nil && c.Output.ChargeID != "" && c.Input.Amount != nil && refunded[c.Output.ChargeID] >= *c.Input.Amount
}

func chargeIDs(cs []history.Op) string {
	var out []string
	for _, c := range cs {
		if c.Output != nil && c.Output.ChargeID != "" {
			out = append(out, c.Output.ChargeID)
		}
	}
	return strings.Join(out, ", ")
}

// keyOf is the key part of an intent name (endpoint:caller:key).
func keyOf(intent string) string {
	if i := strings.LastIndex(intent, ":"); i >= 0 {
		return intent[i+1:]
	}
	return intent
}

func answersOf(atts []*driver.Attempt, intent string) string {
	var mine []*driver.Attempt
	for _, a := range atts {
		if a.Intent == intent {
			mine = append(mine, a)
		}
	}
	return Summarize(mine)
}

// judgeLedger reads the service's own rows of an order. More rows than
// intents is a double-booking when the PSP's log has fewer charges than
// rows (the service recorded one payment twice; a second charge of the
// card, if any, is the PSP judge's double-charge); none while the PSP
// charged (or the client was told succeeded) is a charge the ledger lacks.
// charges is -1 when idemcheck has no PSP log to hold the rows against.
func (t *T) judgeLedger(ctx context.Context, g *group, charges int, names []string, succeeded bool) int {
	e := t.Env
	if e.Ledger == nil {
		return -1
	}
	rows, err := e.Ledger.Rows(ctx, g.order)
	if err != nil {
		t.Inconclusive("the ledger could not be read", "%v", err)
		return -1
	}
	if len(rows) > g.expect && len(rows) > charges {
		psp := fmt.Sprintf("the PSP has %d: the buyer's card was charged %s", charges, timesWord(charges))
		if charges < 0 {
			psp = "no PSP log to tell whether the card was charged twice"
		}
		f := t.Safety(checker.KindDoubleBooking, "payment check: one ledger charge per intent",
			"the service's ledger has %d charges for %d intent(s) of order %s (%s)", len(rows), g.expect, g.order, psp)
		f.Intent, f.Amount = names[0], g.amount
	}
	if len(rows) == 0 && (charges > 0 || succeeded) {
		f := t.Safety(checker.KindLedgerMissing, "payment check: every charge is in the ledger",
			"the PSP has %d charge(s) for order %s (answered succeeded: %v) but the service's ledger has none", charges, g.order, succeeded)
		f.Intent, f.Amount = names[0], g.amount
	}
	t.Counted("%d ledger row(s) for %s", len(rows), g.order)
	return len(rows)
}

func timesWord(n int) string {
	switch n {
	case 0:
		return "not at all"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
