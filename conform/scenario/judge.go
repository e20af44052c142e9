package scenario

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// Rules the safety findings cite.
const (
	RuleHistory = "HISTORY.md one charge per intent"
)

// Judge waits for the target to go quiet, then holds the intents' answers
// against the effects: at most the expected charges per order, each of the
// order's amount, a final answer that names the charge when there is one,
// the ledger's rows, and the checker's verdict over the recorded history.
// What must have happened for this to mean anything (a create answered
// with a payment, the expected charge at the PSP or the counter) is checked
// too; when it did not happen the check is inconclusive.
func (t *T) Judge(ctx context.Context, expect map[int64]int, ins ...Intent) {
	e := t.Env
	e.Settle(ctx)
	atts := t.Attempts()
	gs := groups(ins, expect)
	attr, withPSP := e.attribute(ctx)
	var truth history.History
	shared := map[string]bool{}
	total := 0
	for _, g := range gs {
		total += g.expect
		names := intentsOf(e, g.intents)
		answered := answeredWithPayment(atts, names)
		owed := g.expect
		if !answered && voided(atts, names) {
			// A key RESOLVE voided: its creates answer void and name no
			// payment; the checker holds them to the resolve, and the
			// recount owes the order no charge.
			answered, owed = true, 0
		}
		if !answered {
			t.Inconclusive(fmt.Sprintf("no create for %s was answered with a payment", g.order), "%s", whyNoAnswer(e, atts, names))
		}
		var charges []history.Op
		if withPSP {
			charges = attr.By[g.order]
			t.judgeCharges(g, charges, names, atts)
			if succeededAny(atts, names) && len(charges) == 0 {
				t.Inconclusive(fmt.Sprintf("order %s was answered succeeded but no charge of it reached the PSP", g.order),
					"is the service calling the PSP idemcheck started (its URL and key are printed at the start)?")
			}
			t.Counted("%s at the PSP for %s", ChargeWords(charges), g.order)
		}
		pspCharges := -1
		if withPSP {
			pspCharges = len(charges)
		}
		rows := t.judgeLedger(ctx, g, pspCharges, names, succeededAny(atts, names))
		e.Judged(g.order, owed, len(charges), rows)
		if len(g.intents) > 1 {
			// Charges of one order cannot be told apart by intent: these
			// intents are judged by count, not by the checker.
			for _, n := range names {
				shared[n] = true
			}
		} else {
			for _, c := range charges {
				c.Intent = names[0]
				if c.Input.PSPKey == "" {
					// The checker keys charges by PSP key; one made without
					// a key must not drop out of the history.
					c.Input.PSPKey = "(no idempotency key)"
				}
				truth = append(truth, c)
			}
		}
	}
	if !withPSP && e.Effects != nil {
		t.CountDelta(ctx, t.countBefore, int64(total), intentNames(e, ins), succeededAny(atts, intentsOf(e, ins)))
	}
	t.checkHistory(truth, shared)
	t.judgeStaleInProgress(atts)
}

// judgeCharges holds one order's charges against what the check sent.
func (t *T) judgeCharges(g *group, charges []history.Op, names []string, atts []*driver.Attempt) {
	e := t.Env
	rule := RuleHistory + " (SCENARIOS.md " + t.Check.ID + ")"
	var own []history.Op
	for _, c := range charges {
		amt := int64(-1)
		if c.Input.Amount != nil {
			amt = *c.Input.Amount
		}
		switch {
		case amt == g.amount && g.sameCurrency(c):
			own = append(own, c)
		case slices.Contains(g.alt, amt) || (amt == g.amount && slices.Contains(g.altCur, strings.ToLower(c.Input.Currency))):
			if !t.hasFinding(checker.KindMismatchAccepted, names[0]) {
				f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5", "the mismatched request (%d %s) under the key of %s was charged (PSP key %q)", amt, c.Input.Currency, g.order, c.Input.PSPKey)
				f.Charges, f.Intent, f.Amount = []history.Op{c}, names[0], amt
			}
		default:
			f := t.Safety(checker.KindWrongAmount, "payment check: the charge is the amount requested",
				"order %s asked for %d %s; the PSP charged %d %s (PSP key %q)", g.order, g.amount, g.currency, amt, c.Input.Currency, c.Input.PSPKey)
			f.Charges, f.Intent, f.Amount, f.Seqs = []history.Op{c}, names[0], g.amount, seqsFor(atts, names[0])
			own = append(own, c)
		}
	}
	if extra := len(own) - g.expect; extra > 0 && extra <= g.alike && t.hasFinding(checker.KindMismatchAccepted, names[0]) {
		// A mismatch that changed only the order id or the payment method
		// was answered as accepted, and its charge looks like the order's:
		// the extra charges are that mismatch's, not a second charge of
		// one request.
		f := t.Safety(checker.KindMismatchAccepted, "SCENARIOS.md A5",
			"%d charge(s) at the PSP beyond the %d of order %s, from mismatched requests under its key (%s)", extra, g.expect, g.order, strings.Join(PSPKeys(own), ", "))
		f.Charges, f.Intent, f.Amount = own, names[0], g.amount
		own = own[:g.expect]
	}
	if len(own) > g.expect {
		f := t.Safety(checker.KindDoubleCharge, rule,
			"%d PSP charges for %d intent(s) of order %s (%s); PSP keys %s", len(own), g.expect, g.order, strings.Join(names, ", "), strings.Join(PSPKeys(own), ", "))
		f.Amount, f.Charges, f.Intent = g.amount, own, names[0]
		f.Seqs = seqsFor(atts, f.Intent)
	}
	// Intents of one order told succeeded with payments of their own need a
	// charge each: one riding on another's charge was told a lie.
	paid := map[string]bool{}
	for _, a := range atts {
		if slices.Contains(names, a.Intent) && a.Outcome == history.OutcomeSucceeded && a.PaymentID != "" {
			paid[a.PaymentID] = true
		}
	}
	if len(g.intents) > 1 && len(own) > 0 && len(paid) > len(own) {
		f := t.Safety(checker.KindInconsistentAnswer, rule,
			"%d payments of order %s were answered succeeded (%s) but the PSP has %d charge(s) for them: a caller was told succeeded on another's charge",
			len(paid), g.order, strings.Join(slices.Sorted(maps.Keys(paid)), ", "), len(own))
		f.Amount, f.Charges, f.Intent = g.amount, own, names[len(names)-1]
	}
	// Each live charge must be some intent's final success; intents of one
	// order share its charges, so only charges beyond those told succeeded
	// are owed an answer.
	told := 0
	for _, n := range names {
		if fin := t.finals[n]; fin != nil && fin.Outcome == history.OutcomeSucceeded {
			told++
		}
	}
	if len(own) <= told {
		// No more live charges than own: the PSP's refunds, a read of its
		// whole log, would change nothing (a round asked once an order).
		return
	}
	refunded := refundedAmounts(e)
	live := 0
	for _, c := range own {
		if !refundedWhole(c, refunded) {
			live++
		}
	}
	if live <= told {
		return
	}
	for _, n := range names {
		fin := t.finals[n]
		if fin == nil || fin.Outcome == history.OutcomeSucceeded {
			continue
		}
		f := t.Safety(checker.KindFailedButCharged, "payment check: the final answer names the charge (converge_within)",
			"the PSP charged %s (PSP key %q) for key %s, and nothing refunded it, but the client's final answer after %s of retries was %s (answers: %s): the buyer paid and was not told",
			chargeIDs(own), own[0].Input.PSPKey, keyOf(n), e.Cfg.ConvergeD(), DescribeResp(fin), answersOf(atts, n))
		f.Amount, f.Charges, f.Intent, f.Seqs = g.amount, own, n, seqsFor(atts, n)
	}
}

func (t *T) hasFinding(kind, intent string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.Findings {
		if f.Kind == kind && (f.Intent == intent || intent == "") {
			return true
		}
	}
	return false
}

// Attempts are the copies this check sent.
func (t *T) Attempts() []*driver.Attempt {
	t.mu.Lock()
	out := slices.Clone(t.kept)
	t.mu.Unlock()
	for _, a := range t.Env.D.Attempts() {
		if a.Seq >= t.first {
			out = append(out, a)
		}
	}
	return out
}

func seqsFor(atts []*driver.Attempt, intent string) []int {
	var out []int
	for _, a := range atts {
		if a.Intent == intent {
			out = append(out, a.Seq)
		}
	}
	return out
}

func PSPKeys(cs []history.Op) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%q", c.Input.PSPKey))
	}
	return out
}

func intentNames(e *Env, ins []Intent) string {
	var out []string
	for _, in := range ins {
		out = append(out, e.D.Intent(in.Caller, in.Key))
	}
	return strings.Join(out, ", ")
}

// CountDelta checks a plain counter: at most want new effects since before,
// and at least one when a create was answered succeeded.
func (t *T) CountDelta(ctx context.Context, before int64, want int64, what string, succeeded bool) {
	if before < 0 {
		t.Inconclusive("the effect counter could not be read before the check", "is effects.http_counter / sql_counter reachable?")
		return
	}
	t.Env.Settle(ctx)
	after := t.Env.Count(ctx)
	if after < 0 {
		t.Inconclusive("the effect counter could not be read after the check", "is effects.http_counter / sql_counter reachable?")
		return
	}
	if after-before > want {
		// A counter is what the config says counts charges, not the PSP's
		// log: idemcheck cannot tell the service's books from the card.
		t.Safety(checker.KindDoubleBooking, RuleHistory+" (SCENARIOS.md "+t.Check.ID+")",
			"the effect counter grew by %d for %s (at most %d expected); with a counter and no fake PSP idemcheck cannot see the card: if the counter reads the PSP itself, the card was charged more than once", after-before, what, want)
	}
	if succeeded && after == before {
		t.Inconclusive("a create was answered succeeded but the effect counter did not move", "does the counter count this service's charges?")
	}
	t.Counted("the effect counter grew by %d for %d intent(s)", after-before, want)
}

// attachTruth puts the PSP charges of the amounts a finding's attempts sent
// beside it, so every report shows the ground truth next to the answers.
func attachTruth(e *Env, fs []Finding, atts []*driver.Attempt) {
	if e.PSP == nil {
		return
	}
	all := e.PSP.Charges()
	for i := range fs {
		f := &fs[i]
		if len(f.Charges) > 0 {
			continue
		}
		amounts := map[int64]bool{}
		if f.Amount != 0 {
			amounts[f.Amount] = true
		}
		for _, a := range atts {
			if slices.Contains(f.Seqs, a.Seq) && a.Amount != 0 {
				amounts[a.Amount] = true
			}
		}
		for _, c := range all {
			if c.Input.Amount != nil && amounts[*c.Input.Amount] {
				f.Charges = append(f.Charges, c)
			}
		}
	}
}

// Partitions is how many partitions the checker decided for this check.
func (t *T) Partitions() int {
	if t.checkerRes == nil {
		return 0
	}
	return t.checkerRes.Partitions - len(t.checkerRes.Unknown)
}

// Report turns a checker result into findings, once per kind and intent.
func (t *T) Report(res *checker.Result, what string) {
	for _, u := range res.Unknown {
		t.Inconclusive("the checker decided the "+what, "partition %s (%d ops) undecided within its timeout", u.Name, u.Ops)
	}
	for _, inv := range res.Invalid {
		t.Inconclusive("the checker accepted every op of the "+what, "%s", inv)
	}
	for i := range res.Violations {
		v := res.Violations[i]
		if t.hasFinding(v.Kind, v.Intent) {
			continue
		}
		f := t.Safety(v.Kind, RuleHistory+" (checker, "+what+")", "%s", v.Message)
		f.Intent, f.Violation = v.Intent, &v
	}
}
