package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runQDup: a producer retry whose first send had landed, as the consumer
// meets it: the same record (key and body, and its dedup id on a broker
// that has one) twice in a row, and a second payment's copy again only
// after the group committed past its first. On a broker with a dedup
// window the first copy falls inside it (the broker is to drop it) and
// the late one is held until the window has passed, so the consumer meets
// it: the evidence says which duplicate each copy was. Under content-based
// dedup a third payment's retry differs only by its send timestamp and
// goes without a dedup id (q_dup_stamped.go): the broker stores it again
// at once, so it is judged before any wait for the window.
func runQDup(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	if !q.RequireReady(ctx, e, t) {
		return
	}
	a, b := scenario.NewQRecord(ctx, e, t), scenario.NewQRecord(ctx, e, t)
	if a == nil || b == nil {
		return
	}
	first := []*scenario.QRecord{a, scenario.CopyOf(a), b}
	var st *stamped
	if q.ContentDedup() {
		if st = newStamped(ctx, e, t); st == nil {
			return
		}
		first = append(first, st.orig, st.cp)
	}
	if err := q.Produce(ctx, e, first...); err != nil {
		t.Errorf("%v", err)
		return
	}
	soon := q.DupWords(a, first[1])
	e.Logf("  %s: %s", first[1], soon)
	if !q.RequireCommitted(ctx, t, first, e.Cfg.ConvergeD()) {
		return
	}
	exercised := ""
	if st != nil {
		exercised = st.judge(ctx, e, t)
		first = first[:3]
	}
	if !q.OutsideDedupWindowAfter(ctx, e, t, b, exercised) {
		return
	}
	late := scenario.CopyOf(b)
	if err := q.Produce(ctx, e, late); err != nil {
		t.Errorf("%v", err)
		return
	}
	later := q.DupWords(b, late)
	e.Logf("  %s: %s", late, later)
	recs := append(first, late)
	if !q.RequireCommitted(ctx, t, recs, e.Cfg.ConvergeD()) {
		return
	}
	t.JudgeQueue(ctx, recs, nil)
	w := q.Words()
	why := fmt.Sprintf("%s produced twice in a row, %s again after %s %s its first copy (%s); %s %s all %d; the copy in a row: %s; the late copy: %s",
		a.Ref.PaymentID, b.Ref.PaymentID, w.Who, w.Past, fmt.Sprint(first[2]), w.Who, w.Past, len(recs), soon, later)
	if st != nil {
		why += "; " + exercised
	}
	t.Passf("%s", why)
}
