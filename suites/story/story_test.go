package story

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/checker/timeline"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/resolver"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/streamjob"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// run is one story's shared state across its ordered beats.
type run struct {
	w        *world
	tl       *timeline.Timeline
	ph, ph2  *phone.Phone
	pid      string
	pid2     string
	j1, j2   *job
	streamSt streamjob.Status
	first    phone.Reply
	// firstCredits is what the first R2 worker credited before it died.
	firstCredits int
}

// declined is m2's payment of 500, which the PSP declines.
func declined() phone.Order {
	return phone.Order{OrderID: "44", Amount: 500, Currency: "USD", PaymentMethod: "pm_card_chargeDeclined", Merchant: "m2"}
}

// reportDir is where the timeline goes: $IDEMCHECK_REPORT_DIR/story when
// set, else report/ beside this suite (git ignores it), which the next run
// overwrites: a reader finds it after any run, and no temp folder outlives
// the run.
func reportDir(name string) string {
	if d := os.Getenv(matchers.ReportDirEnv); d != "" {
		return filepath.Join(d, "story", name)
	}
	return filepath.Join("report", name)
}

// apiStat sums an API counter over a Region's API servers.
func apiStat(r *run, name string) int64 {
	GinkgoHelper()
	var n int64
	for _, t := range r.w.r2.APIs {
		m, err := api.ReadStats(t.Admin)
		Expect(err).NotTo(HaveOccurred())
		n += m[name]
	}
	return n
}

// describeStory declares the H1 timeline as ordered beats; end asserts the
// final state (the holds spec's exact counts, or a caught spec's verdict).
func describeStory(title, report string, o opts, end func(ctx SpecContext, r *run)) {
	Describe(title, Ordered, func() {
		r := &run{pid: api.PaymentID(api.Scope("u1", "K1", true)), pid2: api.PaymentID(api.Scope("u2", "K1", true))}

		BeforeAll(func(ctx SpecContext) {
			r.w = newWorld(ctx, o)
			w := r.w
			r.tl = timeline.New(title, GinkgoRandomSeed(), storytime.Scale, time.Now())
			DeferCleanup(func() {
				text, html, err := r.tl.Save(reportDir(report))
				Expect(err).NotTo(HaveOccurred())
				AddReportEntry("timeline "+report, r.tl.Text())
				GinkgoWriter.Printf("seed %d; timeline: %s and %s\n", GinkgoRandomSeed(), text, html)
			})
			r.ph = &phone.Phone{Name: "phone-1", Caller: "u1", Base: w.routerURL, Rec: w.rec}
			r.ph2 = &phone.Phone{Name: "phone-2", Caller: "u2", Base: w.routerURL, Rec: w.rec}
			r.j1 = w.startJob(ctx, "job-v1", 1)
		}, NodeTimeout(3*time.Minute))

		It("the PSP charges and its reply is lost; at the deadline pay_7 goes UNKNOWN with a pointer; the phone hears nothing within 10 s", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			lost := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{PSPKey: r.pid + ":charge", Times: 1}})
			r.ph.Journal("K1")
			tl = timeline.New(tl.Title, tl.Seed, tl.Scale, time.Now())
			r.tl = tl
			tl.Note("Story seconds are real time divided by the scale (" + storytime.EnvScale + "); at the buyer's return R2's clocks were moved forward 7200 s, not waited through.")
			tl.Note("R1 serves u1; R2 follows 1.0 story s behind and takes over when R1 fails. Mutants: " + mutantsOf(o) + ".")
			tl.Mark("phone-1", "tap Pay: key K1 made and journaled, create sent (router -> R1)")
			// R1's answer needs longer than the phone waits: lost to the
			// phone, which gives up at its own 10 s timeout.
			undo, err := w.r1Link.Delay(faults.Downstream, storytime.D(storytime.PhoneTimeout), 0)
			Expect(err).NotTo(HaveOccurred())
			r.first = r.ph.Send(ctx, "K1", phone.Story(), false)
			Expect(undo()).To(Succeed())
			Expect(r.first.Timeout).To(BeTrue(), "the phone should hear nothing: %s", r.first)
			var ne net.Error
			Expect(errors.As(r.first.Err, &ne) && ne.Timeout()).To(BeTrue(), "the phone's own timeout, not a dropped connection: %v", r.first.Err)
			tl.Mark("phone-1", "no answer within its 10 s timeout: R1's 202 (processing, at the deadline) was still on its way (the link between R1 and the router holds it back)")
			Expect(lost.Fired()).To(Equal(int64(1)), "the PSP's reply was never lost")
			charges := w.psp.Charges()
			Expect(charges).To(HaveLen(1))
			tl.MarkAt(time.Unix(0, charges[0].Call), "psp", "charges "+charges[0].Output.ChargeID+" under "+r.pid+":charge; its reply is held until R1's API gives up")
			p := w.payment(ctx, w.pool1, r.pid)
			Expect(p.State).To(Equal(ledger.Unknown))
			tl.MarkAt(time.Unix(0, p.DeadlineAt), "R1/api", "deadline (5 s after the LB's stamp): PENDING -> UNKNOWN; the key record stores a pointer")
			rec := w.record(ctx, srv.r1.Valkey.Endpoint(), "K1")
			Expect(rec.State).To(Equal(keystore.Pointer))
		}, SpecTimeout(time.Minute))

		It("the phone retries K1 at 10 s and hears processing, rendered from the payment; m2's payment is declined", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			a2 := r.ph.Send(ctx, "K1", phone.Story(), true)
			Expect([]any{a2.Code, a2.Outcome, a2.PaymentID, a2.Region}).To(Equal([]any{http.StatusAccepted, history.OutcomeProcessing, r.pid, "R1"}), a2.String())
			tl.Repeat("phone-1", "retry with K1: 202 processing from R1", "create K1", "the key record's pointer: the answer is rendered from the UNKNOWN payment, no second claim, no PSP call")
			// The stream job's checkpoint 1: before anything is final.
			id, err := streamjob.TakeCheckpoint(r.j1.admin)
			Expect(err).NotTo(HaveOccurred())
			Expect(id).To(Equal(int64(1)))
			tl.Mark("R2/stream-job v1", "checkpoint 1 (nothing final yet)")
			r.ph2.Journal("K1")
			d := r.ph2.Send(ctx, "K1", declined(), false)
			Expect([]any{d.Code, d.Outcome, d.PaymentID}).To(Equal([]any{http.StatusPaymentRequired, history.OutcomeFailed, r.pid2}), d.String())
			tl.Mark("phone-2", "u2 pays m2 500: the PSP declines, FAILED")
			// The Region lag, read at R2 itself: R1 committed FAILED before
			// it answered, so R2 cannot show it sooner than the lag after the
			// answer (less the moments the answer took). With instant
			// replication R2 would show it at once; a lag never observed
			// would leave "R2 never saw R1's last second" proving nothing.
			answered := time.Now()
			Expect(w.state(ctx, w.pool2, r.pid2)).NotTo(Equal(ledger.Failed), "R2 shows R1's FAILED as R1 answers: no Region lag")
			Eventually(func() string { return w.state(ctx, w.pool2, r.pid2) }).WithTimeout(eventually(5)).WithPolling(10 * time.Millisecond).Should(Equal(ledger.Failed))
			behind := time.Since(answered)
			Expect(behind).To(BeNumerically(">=", w.lag()/2), "R2 saw R1's FAILED %v after R1 answered; the lag is %v", behind, w.lag())
			tl.Mark("R2", fmt.Sprintf("shows m2's FAILED payment %v after R1 answered it (the Region lag, %v)", behind.Round(time.Millisecond), w.lag()))
		}, SpecTimeout(time.Minute))

		It("R2, 1.0 s behind, sees pay_7 UNKNOWN; R1 fails mid-replication: its resolver settles and its relay publishes ev_7, which R2 never sees", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			Expect(w.state(ctx, w.pool2, r.pid)).To(Equal(ledger.Unknown))
			Eventually(func() string {
				if rec := w.record(ctx, srv.r2.Valkey.Endpoint(), "K1"); rec != nil {
					return rec.State
				}
				return ""
			}).WithTimeout(eventually(5)).Should(Equal(keystore.Pointer))
			tl.Mark("R2", "the replica holds pay_7 UNKNOWN, its pointer and m2's FAILED payment (1.0 s behind R1)")
			w.cutR1()
			tl.Mark("R1", "R1 fails mid-replication: nothing it writes from now on reaches R2")
			wr := tierOf(w.r1, "worker-R1")
			Expect(wr.Proc.Kill()).To(Succeed())
			w.removeMember(ctx, "worker-R1")
			held, err := faults.FailpointAt(w.r1.Resolver.Admin, resolver.SweepPoint).Fired()
			Expect(err).NotTo(HaveOccurred())
			Expect(held).To(BeNumerically(">", 0), "R1's resolver was never held")
			Expect(faults.FailpointAt(w.r1.Resolver.Admin, resolver.SweepPoint).Undo()).To(Succeed())
			Eventually(func() string { return w.state(ctx, w.pool1, r.pid) }).WithTimeout(eventually(10)).Should(Equal(ledger.Succeeded))
			tl.Repeat("R1/resolver", "replays the PSP call: SUCCEEDED and outbox row ev_7 in one transaction (in R1 only)",
				"PSP call under "+r.pid+":charge", "the PSP's 24 h key window: it replays the saved charge, no second charge")
			Eventually(func() bool {
				end, _ := w.logCopies(ctx)
				return end >= 1 && count(ctx, w.pool1, `SELECT count(*) FROM outbox`) == 0
			}).WithTimeout(eventually(10)).Should(BeTrue(), "R1's relay never published ev_7")
			tl.Mark("R1/relay", "publishes ev_7 = "+ledger.EventID(r.pid)+" (R1's leftover copy in the shared log)")
			for _, t := range w.r1.Tiers() {
				if !t.Proc.Exited() {
					Expect(t.Proc.Kill()).To(Succeed())
				}
			}
			tl.Mark("R1", "every R1 tier killed; its worker never credited")
			Expect(count(ctx, w.pool1, `SELECT count(*) FROM credits`)).To(BeZero())
			Expect(w.state(ctx, w.pool2, r.pid)).To(Equal(ledger.Unknown), "R2 saw R1's last second")
			Expect(w.psp.Charges()).To(HaveLen(1))
		}, SpecTimeout(time.Minute))

		It("R2 takes over: its resolver resumes pay_7 with the derived key; the late webhook finds it settled", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			w.promoteR2(ctx)
			w.routeToR2()
			tl.Mark("R2", "promoted; the router sends R1's callers to R2")
			Eventually(func() string { return w.state(ctx, w.pool2, r.pid) }).WithTimeout(eventually(10)).Should(Equal(ledger.Succeeded))
			rs, err := api.ReadStats(w.r2.Resolver.Admin)
			Expect(err).NotTo(HaveOccurred())
			Expect(rs["psp_calls"]).To(BeNumerically(">=", 1))
			// R2's call reached the PSP under the derived key: its own log.
			Expect(len(w.psp.CallsWithKey(r.pid+":charge"))).To(BeNumerically(">=", 2), "the PSP saw no call of R2's resolver under %s:charge", r.pid)
			tl.Repeat("R2/resolver", "resumes the UNKNOWN payment: SUCCEEDED and outbox row ev_7", "PSP call under "+r.pid+":charge (R2 never saw R1's)",
				"the derived PSP key: the PSP replays "+w.psp.Charges()[0].Output.ChargeID)
			Expect(w.psp.Charges()).To(HaveLen(1))
			Expect(w.gateRefused.Load()).To(BeNumerically(">=", 1), "the PSP's webhook was never refused: it was not late")
			tl.Mark("psp", fmt.Sprintf("webhook payment_intent.succeeded refused %d times so far (no webhook served): retried later", w.gateRefused.Load()))
			w.gateTarget.Store(w.r2.Webhook.URL)
			Eventually(func() int64 {
				m, err := api.ReadStats(w.r2.Webhook.Admin)
				Expect(err).NotTo(HaveOccurred())
				return m["stale"]
			}).WithTimeout(eventually(10)).Should(Equal(int64(1)))
			wh, err := api.ReadStats(w.r2.Webhook.Admin)
			Expect(err).NotTo(HaveOccurred())
			Expect(wh).To(HaveKeyWithValue("moved", int64(0)))
			tl.Repeat("R2/webhook", "the late webhook arrives: stale", "payment_intent.succeeded for "+r.pid,
				"compare-and-set along allowed moves: SUCCEEDED already, no move, no second outbox row")
			Expect(count(ctx, w.pool2, `SELECT count(*) FROM outbox`)).To(Equal(1))
		}, SpecTimeout(time.Minute))

		It("R2's relay publishes ev_7 and crashes before deleting the outbox row, twice; the third deletes it", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			for i := 1; i <= 2; i++ {
				t := w.startRelay(ctx, w.r2, fmt.Sprintf("relay-R2-%d", i), relay.AfterPublishBeforeDelete+"=crash")
				expectCrashed(t.Proc)
				tl.Repeat(t.Name, "publishes ev_7, crashes before deleting the outbox row", "ev_7 into the log",
					"the worker's inbox (event id "+ledger.EventID(r.pid)+")")
			}
			w.startRelay(ctx, w.r2, "relay-R2-3", "")
			Eventually(func() int { return count(ctx, w.pool2, `SELECT count(*) FROM outbox`) }).WithTimeout(eventually(10)).Should(BeZero())
			end, _ := w.logCopies(ctx)
			Expect(end).To(Equal(int64(4)), "R1's copy and R2's three")
			tl.Repeat("relay-R2-3", "publishes ev_7 and deletes the row", "ev_7 into the log (the third R2 copy)", "the worker's inbox")
		}, SpecTimeout(time.Minute))

		It("the worker credits, pushes and dies before acknowledging; the next worker finishes with the same replace id", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			w1 := w.startWorker(ctx, w.r2, "worker-R2-1", worker.AfterPushBeforeSent+"=crash")
			expectCrashed(w1.Proc)
			s, err := w.screen.Screen(ctx, "u1")
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Alerts).To(Equal(1), "worker-R2-1 pushed before it died")
			// The worker applies a poll as one batch, and all four copies of
			// ev_7 are in the log before it starts: with the inbox the batch
			// credits once; without it, every copy the first poll brought.
			r.firstCredits = count(ctx, w.pool2, `SELECT count(*) FROM credits`)
			if w.o.workerMutant == "" {
				Expect(r.firstCredits).To(Equal(1))
			} else {
				Expect(r.firstCredits).To(BeNumerically(">=", 1))
			}
			tl.Mark("worker-R2-1", "ev_7 (R1's copy): credit m1 +3000, inbox row and notification PENDING in one transaction; push; dies before SENT and the ack")
			w.removeMember(ctx, "worker-R2-1")
			w.startWorker(ctx, w.r2, "worker-R2-2", "")
			Eventually(func() bool { end, c := w.logCopies(ctx); return c == end }).WithTimeout(eventually(10)).Should(BeTrue())
			// What absorbed the repeats is read back, not assumed: a mutant
			// run's timeline shows the guard missing.
			absorbed := "the inbox drops the credit; the notification record is PENDING, so it pushes again with replace id " + r.pid + " and marks SENT"
			rest := "the inbox (INSERT ... ON CONFLICT DO NOTHING in the credit's transaction)"
			if n := count(ctx, w.pool2, `SELECT count(*) FROM credits`); n != 1 {
				absorbed = fmt.Sprintf("NOTHING: %d credits of ev_7", n)
				rest = absorbed
			}
			tl.Repeat("worker-R2-2", "redelivery of ev_7 (R1's copy)", "ev_7 delivery and its push", absorbed)
			tl.Repeat("worker-R2-2", "R2's three copies of ev_7", "ev_7 deliveries ×3", rest)
		}, SpecTimeout(time.Minute))

		It("the stream job crashes and restores from its checkpoint: the full flush and the replay leave the totals right", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			w.waitSink(ctx, map[string]int64{"m1": 3000, "m2": 500})
			tl.Mark("R2/stream-job v1", "sink m1 = 3000 and m2 = 500 (v1 counts the declined payment), both after barrier 1")
			Expect(r.j1.p.Kill()).To(Succeed())
			tl.Mark("R2/stream-job v1", "crashes (SIGKILL)")
			r.j2 = w.startJob(ctx, "job-v2", 2)
			r.streamSt = w.quiesceStream(ctx, r.j2)
			Expect(r.streamSt.RestoredFrom).To(Equal(int64(1)))
			Expect(w.sinkTotals(ctx)).To(Equal(o.wantSink))
			absorbed := "exactly-once state, the absolute sink and the full flush: m2 gone, m1 = 3000"
			if sink := w.sinkTotals(ctx); len(sink) != 1 || sink["m1"] != 3000 {
				absorbed = fmt.Sprintf("NOTHING cleaned up: the sink is %v", sink)
			}
			tl.Repeat("R2/stream-job v2", fmt.Sprintf("restores checkpoint 1; its flush deletes %d keys tagged >= 1 that the restored state lacks; replays the changes", r.streamSt.Flushed),
				"every change after checkpoint 1", absorbed)
		}, SpecTimeout(time.Minute))

		It("the phone hears succeeded from R2; the buyer comes back at 7,200 s and the ledger answers", func(ctx SpecContext) {
			w, tl := r.w, r.tl
			fin, err := r.ph.Retry(ctx, "K1", phone.Story())
			Expect(err).NotTo(HaveOccurred())
			Expect([]any{fin.Code, fin.Outcome, fin.PaymentID, fin.Region}).To(Equal([]any{http.StatusOK, history.OutcomeSucceeded, r.pid, "R2"}), fin.String())
			tl.Repeat("phone-1", "retry with K1: 200 succeeded from R2", "create K1", "R2's ledger row: the same payment id")
			claims := apiStat(r, "claims")
			// The PSP's own log, not the API's counter, says what reached it.
			calls, keyed := len(w.psp.Calls()), len(w.psp.CallsWithKey(r.pid+":charge"))
			// The tiers that read time on the request path: the LB's stamp,
			// the API servers' key window, the resolver's and the webhook's
			// leases (the relay and the worker read no story time).
			for _, t := range append([]*refstack.Tier{w.r2.LB, w.r2.Resolver, w.r2.Webhook}, w.r2.APIs...) {
				Expect(storytime.SetOffset(t.Admin, storytime.D(storytime.BuyerBack))).To(Succeed(), t.Name)
			}
			tl.Jump(time.Now(), storytime.BuyerBack)
			back := r.ph.Send(ctx, "K1", phone.Story(), true)
			Expect([]any{back.Code, back.Outcome, back.PaymentID, back.Region}).To(Equal([]any{http.StatusOK, history.OutcomeSucceeded, r.pid, "R2"}), back.String())
			Expect(apiStat(r, "claims")).To(Equal(claims+1), "the expired key record was not claimed again")
			Expect(w.psp.Calls()).To(HaveLen(calls), "the buyer's return reached the PSP")
			Expect(w.psp.CallsWithKey(r.pid + ":charge")).To(HaveLen(keyed))
			tl.Repeat("phone-1", "the buyer comes back with K1 (every R2 clock +7200 s)", "create K1",
				"the key record expired (3600 s window); the durable guard, pay_7's row under UNIQUE (caller, key), answers SUCCEEDED; nothing reaches the PSP")
			rec := w.record(ctx, srv.r2.Valkey.Endpoint(), "K1")
			Expect(rec.State).To(Equal(keystore.Done))
		}, SpecTimeout(time.Minute))

		It("at quiescence "+report, func(ctx SpecContext) { end(ctx, r) }, SpecTimeout(2*time.Minute))
	})
}
