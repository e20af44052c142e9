package story

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// facts records the end state on the timeline and returns it.
func facts(ctx context.Context, r *run) (charges, credits int, balance int64, shown, alerts int, sink map[string]int64) {
	w := r.w
	charges = len(w.psp.Charges())
	credits = len(w.credits(ctx))
	balance = w.balance(ctx)
	s, err := w.screen.Screen(ctx, "u1")
	Expect(err).NotTo(HaveOccurred())
	shown, alerts = len(s.Shown), s.Alerts
	sink = w.sinkTotals(ctx)
	r.tl.Fact("charges at the PSP", fmt.Sprint(charges), charges == 1)
	r.tl.Fact("credits of pay_7", fmt.Sprint(credits), credits == 1)
	r.tl.Fact("m1's balance (12000 before)", fmt.Sprint(balance), balance == 15000)
	r.tl.Fact("notifications shown on u1's phone (alerts)", fmt.Sprintf("%d (%d)", shown, alerts), shown == 1)
	r.tl.Fact("stream sink", fmt.Sprint(sink), len(sink) == 1 && sink["m1"] == 3000)
	return
}

// truth is the sink the ledger implies: m1's day holds pay_7's 3000, and
// m2's declined 500 is no total at all.
var truth = map[string]int64{"m1": 3000}

var _ = Describe("H1: the whole story on one timeline", Label("H1"), func() {
	describeStory("H1 holds: every fault of the story on one timeline", "holds", opts{wantSink: truth}, func(ctx SpecContext, r *run) {
		w := r.w
		charges, credits, balance, shown, alerts, sink := facts(ctx, r)
		Expect(charges).To(Equal(1), "one charge")
		Expect(w.psp.Charges()[0].Input.PSPKey).To(Equal(r.pid + ":charge"))
		Expect(credits).To(Equal(1), "one credit")
		Expect(w.credits(ctx)[0].Input.EventID).To(Equal(ledger.EventID(r.pid)))
		Expect(balance).To(Equal(int64(15000)), "m1 12000 -> 15000")
		Expect([]int{shown, alerts}).To(Equal([]int{1, 2}), "one notification shown; the unavoidable repeat alert of the redelivery")
		Expect(sink).To(Equal(map[string]int64{"m1": 3000}), "the sink: m1's day holds pay_7's 3000, m2's declined 500 is gone")
		w.sinkReads(ctx, r.streamSt)
		res := w.check(ctx)
		r.tl.Fact("checker over the whole history", fmt.Sprintf("%d ops, %d violations", res.Ops, len(res.Violations)), res.OK())
		Expect(res.Violations).To(BeEmpty())
	})
	describeStory("H1 caught (worker-no-inbox): the worker credits every copy of ev_7", "caught-worker-no-inbox",
		opts{workerMutant: string(mutant.WorkerNoInbox), wantSink: truth}, func(ctx SpecContext, r *run) {
			w := r.w
			// What worker-R2-1 credited before it died (its batch, never
			// acknowledged), then all four copies again from worker-R2-2:
			// R1's copy and R2's three.
			n, want := len(w.credits(ctx)), r.firstCredits+4
			r.tl.Fact("credits of pay_7 (every copy credited)", fmt.Sprint(n), n == want)
			Expect(n).To(Equal(want))
			Expect(w.balance(ctx)).To(Equal(int64(12000 + want*3000)))
			Expect(w.psp.Charges()).To(HaveLen(1))
			w.sinkReads(ctx, r.streamSt)
			res := w.check(ctx)
			r.tl.Fact("the checker names", fmt.Sprint(kinds(res)), len(res.ByKind(checker.KindDoubleCredit)) == 1)
			// Exactly one finding, m1's double credit: the notification
			// record still holds the phone to one notification, and the
			// charge and the sink are untouched by the worker's inbox.
			Expect(res).To(matchers.HaveExactViolations(checker.KindDoubleCredit))
		})

	describeStory("H1 caught (stream-no-full-flush): the restore keeps m2's declined 500 in the sink", "caught-stream-no-full-flush",
		opts{streamMutant: mutant.StreamNoFullFlush, wantSink: map[string]int64{"m1": 3000, "m2": 500}}, func(ctx SpecContext, r *run) {
			w := r.w
			Expect(w.credits(ctx)).To(HaveLen(1))
			Expect(w.balance(ctx)).To(Equal(int64(15000)))
			w.sinkReads(ctx, r.streamSt)
			res := w.check(ctx)
			sink := w.sinkTotals(ctx)
			r.tl.Fact("stream sink (m2's declined 500 kept)", fmt.Sprint(sink), sink["m2"] == 500)
			r.tl.Fact("the checker names", fmt.Sprint(kinds(res)), len(res.ByKind(checker.KindSinkDivergence)) == 1)
			Expect(kinds(res)).To(Equal([]string{checker.KindSinkDivergence}))
			Expect(res.Violations[0].Merchant).To(Equal("m2"))
		})
})

func mutantsOf(o opts) string {
	var out []string
	for _, m := range o.mutants {
		out = append(out, string(m))
	}
	if o.workerMutant != "" {
		out = append(out, "worker "+o.workerMutant)
	}
	if o.streamMutant != "" {
		out = append(out, "stream job "+string(o.streamMutant))
	}
	if len(out) == 0 {
		return "none (the reference, every guard on)"
	}
	return strings.Join(out, ", ")
}
