package scenario

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
)

// RuleLate is what a late finding cites.
const RuleLate = "payment check: late effects (final recount after quiesce)"

// Recount waits out the quiet period, then recounts every order's charges
// (and ledger rows) across the whole run: a charge made after its check was
// judged (a resolver, a sweeper, an asynchronous worker) is reported against
// the check that created the intent, and a charge no order explains is
// reported on the recount's own line.
func Recount(ctx context.Context, e *Env, results []Result) []Result {
	r := Result{ID: "recount", Title: "final recount of every intent's charges after the quiet period", Level: Safety, Rule: RuleLate}
	start := time.Now()
	if e.Cfg.ConsumerOnly() {
		r.Verdict, r.Why = NA, config.ConsumerOnlyWhy
		return append(results, r)
	}
	if e.Effects == nil {
		r.Verdict, r.Why = NA, "no effects configured"
		return append(results, r)
	}
	q := e.Cfg.QuiesceD()
	// A failure before the recount is the last check's, not the recount's.
	_ = takeReadError(e)
	if e.sleepFor(ctx, WaitQuiet, q) != nil {
		r.Verdict, r.Why = Errored, "interrupted during the quiet period"
		return append(results, r)
	}
	attr, ok := e.attributeAll(ctx)
	if !ok {
		// No attribution is a plain counter's, or a PSP whose charges
		// could not be read (fakepsp's at a URL gives none then): that
		// one is no n/a, the late charges are unseen.
		if err := takeReadError(e); err != nil {
			r.Verdict, r.Why = Errored, fmt.Sprintf("the evidence could not be read (%v): no recount stands on charges it did not see", err)
			r.Elapsed = time.Since(start)
			return append(results, r)
		}
		r.Verdict, r.Why = NA, "a plain counter cannot be recounted per intent"
		return append(results, r)
	}
	byID := map[string]*Result{}
	for i := range results {
		byID[results[i].ID] = &results[i]
	}
	// An order that could not be read back is in the read error too.
	orders, _ := e.trackedCopy()
	if err := takeReadError(e); err != nil {
		r.Verdict, r.Why = Errored, fmt.Sprintf("the evidence could not be read (%v): no recount stands on orders or charges it did not see", err)
		r.Elapsed = time.Since(start)
		return append(results, r)
	}
	total, late := 0, 0
	// Orders whose ledger could not be read, and the first failure: their
	// late rows were not looked for, so the recount proves less.
	var unread []string
	var unreadErr error
	for _, tr := range orders {
		id := tr.id
		cs := attr.By[id]
		total += len(cs)
		if !tr.judged {
			continue
		}
		target := byID[tr.check]
		if target == nil {
			target = &r
		}
		if n := len(cs); n > int(tr.expect) && n > int(tr.charges) {
			late++
			f := Finding{Level: Safety, Kind: checker.KindDoubleCharge, Rule: RuleLate, Amount: tr.amount, Charges: cs,
				Intent: tr.first, Message: fmt.Sprintf("late charge: order %s has %d PSP charges %s after the run's checks (%d when %s was judged, %d expected); PSP keys %s",
					id, n, q, tr.charges, tr.check, tr.expect, strings.Join(PSPKeys(cs), ", "))}
			target.AddLate(f)
		}
		if e.Ledger != nil && tr.ledger >= 0 {
			rows, err := e.Ledger.Rows(ctx, id)
			if err != nil {
				if unreadErr == nil {
					unreadErr = err
				}
				unread = append(unread, id)
				continue
			}
			// Rows the PSP's charges account for are the late charge's
			// finding above; rows beyond them are the service's books only.
			if len(rows) > int(tr.expect) && len(rows) > int(tr.ledger) && len(rows) > len(cs) {
				late++
				target.AddLate(Finding{Level: Safety, Kind: checker.KindDoubleBooking, Rule: RuleLate, Amount: tr.amount, Intent: tr.first,
					Message: fmt.Sprintf("late ledger row: the service's ledger has %d charges for order %s after the quiet period (%d when %s was judged; the PSP has %d)", len(rows), id, tr.ledger, tr.check, len(cs))})
			}
		}
	}
	for _, c := range attr.Unattributed {
		amt := int64(0)
		if c.Input.Amount != nil {
			amt = *c.Input.Amount
		}
		r.Findings = append(r.Findings, Finding{Level: Safety, Kind: checker.KindUnattributed, Rule: RuleLate, Amount: amt, Charges: []history.Op{c},
			Message: fmt.Sprintf("a PSP charge of %d (PSP key %q, metadata %v) matches no order idemcheck sent: money moved that no request explains", amt, c.Input.PSPKey, c.Input.Metadata)})
	}
	r.Elapsed = time.Since(start)
	if len(r.Findings) > 0 {
		var msgs []string
		for _, f := range r.Findings {
			msgs = append(msgs, f.Kind+": "+f.Message)
		}
		r.Verdict, r.Why = Violation, strings.Join(msgs, "; ")
		return append(results, r)
	}
	if len(unread) > 0 {
		// The service's ledger, not idemcheck, failed (as judgeLedger's):
		// a late ledger row of these orders would have gone unseen.
		r.Verdict = Inconclusive
		r.Precondition = fmt.Sprintf("the ledger could not be read for %d of %d judged order(s) (%s: %v), so their late rows were not recounted", len(unread), judgedCount(orders), unread[0], unreadErr)
		r.Why = "not proven: " + r.Precondition
		return append(results, r)
	}
	r.Verdict = Pass
	r.Why = fmt.Sprintf("%d orders recounted after %s quiet: %d charges (%d by metadata, %d by the PSP request, %d by amount), none unattributed, %d late",
		len(orders), q, total, attr.How[ByMetadata], attr.How[ByRequest], attr.How[ByAmount], late)
	return append(results, r)
}

func judgedCount(orders []tracked) int {
	n := 0
	for _, tr := range orders {
		if tr.judged {
			n++
		}
	}
	return n
}
