package reference

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func sleepAction(story float64) string { return "1*sleep(" + storytime.D(story).String() + ")" }

var _ = Describe("A. Keys and claims, concurrent and crashed owners", func() {

	// A2: two copies of one request at once. The first claims and is held at
	// a failpoint; the second arrives while it holds the claim.
	a2 := func(ctx SpecContext, w *world, point string) (phone.Reply, phone.Reply) {
		w.armAPIs(point, sleepAction(3))
		p1, p2 := w.phone("phone-1", "u1"), w.phone("phone-2", "u1")
		p1.Journal("K1")
		var r1 phone.Reply
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			r1 = p1.Send(ctx, "K1", phone.Story(), false)
		}()
		Eventually(func() int64 { return w.fired(point) }).WithTimeout(eventually(3)).Should(Equal(int64(1)), "copy 1 never reached "+point)
		r2 := p2.Send(ctx, "K1", phone.Story(), false)
		Eventually(done).WithTimeout(eventually(10)).Should(BeClosed())
		return r1, r2
	}

	Describe("A2 concurrent duplicate", Label("A2"), func() {
		It("holds: exactly one claims; the other gets 409 and makes no PSP call", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			r1, r2 := a2(ctx, w, api.AfterClaim)
			Expect(r1.Code).To(Equal(http.StatusOK), r1.String())
			Expect(r1.PaymentID).To(Equal(id))
			Expect(r2.Code).To(Equal(http.StatusConflict), r2.String())
			Expect(r2.Outcome).To(Equal(history.OutcomeInProgress))
			Expect(w.stat("claims")).To(Equal(int64(1)))
			Expect(w.psp.CallsWithKey(id+":charge")).To(HaveLen(1), "the PSP's own log: one call")
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		// With the claim split into a read and a write, both copies claim
		// and both call the PSP. The derived PSP key and the ledger's
		// compare-and-set still keep it to one charge, so the history alone
		// cannot show it (docs/HISTORY.md, "What a history cannot show"):
		// the spec catches it by the PSP's own log of calls, two under the
		// one derived key, and one charge.
		It("caught: check-then-insert lets both copies claim and call the PSP", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.CheckThenInsert}})
			id := pid("u1", "K1")
			_, r2 := a2(ctx, w, api.BeforeClaim)
			Expect(w.fired(api.BeforeClaim)).To(Equal(int64(2)), "both copies must sit in the gap")
			Expect(w.psp.CallsWithKey(id+":charge")).To(HaveLen(2), "the PSP's own log: two calls for one intent")
			Expect(w.psp.Charges()).To(HaveLen(1), "the derived key kept it to one charge")
			Expect(r2.Code).NotTo(Equal(http.StatusConflict), r2.String())
		}, SpecTimeout(time.Minute))
	})

	// A3: the owner dies after the PENDING insert, before (or after) the PSP
	// call. A repeat after lease + margin takes over from the durable row.
	a3 := func(ctx SpecContext, w *world, point string, withPhone bool) phone.Reply {
		w.lbAdmin(http.MethodPut, "/route?pin=0")
		Expect(faults.FailpointAt(w.st.APIs[0].Admin, point).Arm("crash")).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r1.Code).To(Equal(http.StatusBadGateway), r1.String())
		Expect(w.st.APIs[0].Proc.Wait(eventually(1))).To(MatchError(ContainSubstring("exit status 86")), "api-1 did not crash at "+point)
		Expect(w.payment(ctx, pid("u1", "K1")).State).To(Equal(ledger.Pending))
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		if !withPhone {
			return r1
		}
		r, err := ph.Retry(ctx, "K1", phone.Story())
		Expect(err).NotTo(HaveOccurred())
		return r
	}

	Describe("A3 owner killed after claim and PENDING insert", Label("A3"), func() {
		It("holds (killed before the PSP call): a repeat takes over with the derived key", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			r := a3(ctx, w, api.BeforePSPCall, true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(r.PaymentID).To(Equal(id))
			Expect(w.stat("takeovers")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.outbox(ctx)).To(HaveLen(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds (killed after the PSP call): the takeover's charge is replayed, not repeated", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			r := a3(ctx, w, api.AfterPSPCall, true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(w.stat("takeovers")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.outbox(ctx)).To(HaveLen(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds (no phone): the resolver sweeps the stale PENDING row and settles it", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			a3(ctx, w, api.AfterPSPCall, false)
			Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
				WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(w.outbox(ctx)).To(HaveLen(1))
			ph := w.phone("phone-2", "u1")
			r, err := ph.Retry(ctx, "K1", phone.Story())
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(r.PaymentID).To(Equal(id))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a takeover with a new PSP key charges twice", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.TakeoverNewPSPKey}})
			r := a3(ctx, w, api.AfterPSPCall, true)
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(w.stat("takeovers")).To(Equal(int64(1)))
			Expect(w.psp.Charges()).To(HaveLen(2))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCharge))
		}, SpecTimeout(time.Minute))
	})

	// A4: the owner freezes (SIGSTOP at a failpoint) after claiming and
	// inserting; a repeat takes over after lease + margin; the zombie wakes.
	a4 := func(ctx SpecContext, w *world) (zombie, repeat phone.Reply) {
		w.lbAdmin(http.MethodPut, "/route?pin=0")
		Expect(faults.FailpointAt(w.st.APIs[0].Admin, api.BeforePSPCall).Arm("1*pause")).To(Succeed())
		p1 := w.phone("phone-1", "u1")
		p1.Timeout = storytime.D(30) // this copy waits for the zombie's own answer
		p1.Journal("K1")
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			zombie = p1.Send(ctx, "K1", phone.Story(), false)
		}()
		Eventually(w.st.APIs[0].Proc.Paused).WithTimeout(eventually(3)).Should(BeTrue(), "api-1 never paused itself")
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		p2 := w.phone("phone-2", "u1")
		var err error
		repeat, err = p2.Retry(ctx, "K1", phone.Story())
		Expect(err).NotTo(HaveOccurred())
		Expect(w.st.APIs[0].Proc.Resume()).To(Succeed())
		Eventually(done).WithTimeout(eventually(10)).Should(BeClosed())
		return zombie, repeat
	}

	statOf := func(t string, w *world, name string) int64 {
		for _, a := range w.st.APIs {
			if a.Name == t {
				m, err := readStats(a.Admin)
				Expect(err).NotTo(HaveOccurred())
				return m[name]
			}
		}
		Fail("no tier " + t)
		return 0
	}

	Describe("A4 owner frozen with SIGSTOP, woken later", Label("A4"), func() {
		It("holds: the zombie's completion is refused and it answers from the record", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			zombie, repeat := a4(ctx, w)
			Expect(repeat.Code).To(Equal(http.StatusOK), repeat.String())
			Expect(repeat.PaymentID).To(Equal(id))
			Expect(zombie.Code).To(Equal(http.StatusOK), zombie.String())
			Expect(zombie.PaymentID).To(Equal(id))
			Expect(statOf("api-1", w, "complete_refused")).To(Equal(int64(1)))
			Expect(statOf("api-2", w, "takeovers")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.record(ctx, "u1", "K1").Owner).To(HavePrefix("api-2:"))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		// The zombie's unconditional completion does overwrite the record,
		// but every answer the reference stores is rendered from the ledger
		// row, so the overwrite carries the same answer: the durable guard
		// (the PENDING row under UNIQUE (caller, key), whose state every
		// answer is rendered from) masks this mutant and no history can show
		// it (targets/mutant, docs/HISTORY.md "What a history cannot show").
		// The spec pins that down: the overwrite happened, one charge, and
		// the checker (rightly) sees no violation.
		It("caught: completion not conditional on owner lets the zombie overwrite the record", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.CompleteUnconditional}})
			_, repeat := a4(ctx, w)
			Expect(repeat.Code).To(Equal(http.StatusOK), repeat.String())
			Expect(statOf("api-1", w, "complete_refused")).To(BeZero())
			Expect(w.record(ctx, "u1", "K1").Owner).To(HavePrefix("api-1:"), "the zombie overwrote the record")
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K1") + ":charge"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts), "masked: the answers are rendered from the ledger row")
		}, SpecTimeout(time.Minute))
	})
})
