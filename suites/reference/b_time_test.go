package reference

import (
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/lb"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// lbQueued reads how many requests wait in backend i's queue.
func lbQueued(w *world, i int) int64 {
	resp, err := http.Get(w.st.LB.Admin + "/lb")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var st []lb.Stats
	Expect(json.NewDecoder(resp.Body).Decode(&st)).To(Succeed())
	return st[i].Queued
}

func apiStat(w *world, i int, name string) int64 {
	m, err := readStats(w.st.APIs[i].Admin)
	Expect(err).NotTo(HaveOccurred())
	return m[name]
}

var _ = Describe("B. Time", func() {

	// The late original: A1 is stamped by the LB and held in api-1's queue;
	// the phone gives up at 10, resolves K1, and taps again with K2; A1 is
	// released after that (story 12.00). expired says whether api-1's clock
	// moves past the key record window before A1 runs.
	late := func(ctx SpecContext, w *world, expired bool) (a1, resolve, k2 phone.Reply) {
		w.lbAdmin(http.MethodPut, "/route?pin=0")
		w.lbAdmin(http.MethodPut, "/hold?backend=0")
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			a1 = ph.Send(ctx, "K1", phone.Story(), false)
		}()
		Eventually(func() int64 { return lbQueued(w, 0) }).WithTimeout(eventually(2)).Should(Equal(int64(1)), "A1 never waited in api-1's queue")
		Eventually(done).WithTimeout(eventually(12)).Should(BeClosed())
		Expect(a1.Timeout).To(BeTrue(), "the phone should give up on A1: "+a1.String())
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		resolve = ph.Resolve(ctx, "K1")
		ph.Journal("K2")
		k2 = ph.Send(ctx, "K2", phone.Story(), false)
		if expired {
			Expect(storytimeOffset(w.st.APIs[0].Admin, storytime.D(storytime.KeyWindow+10))).To(Succeed())
		}
		w.lbAdmin(http.MethodDelete, "/hold?backend=0")
		Eventually(func() int64 { return lbQueued(w, 0) }).WithTimeout(eventually(2)).Should(BeZero())
		// A1 has reached api-1; wait until it has answered (the LB counts).
		Eventually(func() int64 {
			return apiStat(w, 0, "deadline_rejects") + apiStat(w, 0, "answered_void") + apiStat(w, 0, "answered_ok")
		}).WithTimeout(eventually(10)).Should(Equal(int64(1)), "A1 never ran on api-1")
		return a1, resolve, k2
	}

	Describe("B1 late original and a new key", Label("B1"), func() {
		It("holds: the deadline rejects A1 before it claims anything; one charge (K2's)", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			_, rs, k2 := late(ctx, w, false)
			Expect(rs.Outcome).To(Equal(history.OutcomeVoid))
			Expect(k2.Code).To(Equal(http.StatusOK), k2.String())
			Expect(apiStat(w, 0, "deadline_rejects")).To(Equal(int64(1)))
			Expect(apiStat(w, 0, "claims")).To(BeZero())
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K2") + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{pid("u1", "K1"): ledger.Void, pid("u1", "K2"): ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: no deadline and no void charge the buyer twice", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoDeadline, mutant.ResolveReadOnly}})
			_, rs, _ := late(ctx, w, false)
			Expect(rs.Outcome).To(Equal(history.OutcomeVoid))
			Expect(apiStat(w, 0, "answered_ok")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(ConsistOf(pid("u1", "K1")+":charge", pid("u1", "K2")+":charge"))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindEffectAfterVoid))
		}, SpecTimeout(time.Minute))
	})

	Describe("B2 resolve voids the absent key", Label("B2"), func() {
		It("holds: A1 finds VOID and gets 409, no PSP call", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoDeadline}})
			_, rs, _ := late(ctx, w, false)
			Expect(rs.Outcome).To(Equal(history.OutcomeVoid))
			Expect(w.record(ctx, "u1", "K1").State).To(Equal(keystore.Void))
			Expect(apiStat(w, 0, "answered_void")).To(Equal(int64(1)))
			Expect(apiStat(w, 0, "psp_calls")).To(BeZero())
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K2") + ":charge"}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("holds: after the key record window A1's insert hits the VOID row, 409, no PSP call", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoDeadline}})
			late(ctx, w, true)
			Expect(apiStat(w, 0, "claims")).To(Equal(int64(1)), "the expired VOID record was claimed")
			Expect(apiStat(w, 0, "answered_void")).To(Equal(int64(1)))
			Expect(apiStat(w, 0, "psp_calls")).To(BeZero())
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K2") + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{pid("u1", "K1"): ledger.Void, pid("u1", "K2"): ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a RESOLVE that only reads lets A1 charge after the void", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoDeadline, mutant.ResolveReadOnly}})
			late(ctx, w, true)
			Expect(w.psp.Charges()).To(HaveLen(2))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindEffectAfterVoid))
		}, SpecTimeout(time.Minute))
	})

	// B3: RESOLVE reads K1 absent and is held at before-resolve-commit while
	// the late original claims K1 and charges.
	b3 := func(ctx SpecContext, w *world) (resolve, orig phone.Reply) {
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		Expect(faults.FailpointAt(w.st.APIs[1].Admin, api.BeforeResolveCommit).Arm(sleepAction(3))).To(Succeed())
		p1, p2 := w.phone("phone-1", "u1"), w.phone("phone-2", "u1")
		p1.Journal("K1")
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			resolve = p1.Resolve(ctx, "K1")
		}()
		Eventually(func() int64 { return w.fired(api.BeforeResolveCommit) }).WithTimeout(eventually(2)).Should(Equal(int64(1)))
		orig = p2.Send(ctx, "K1", phone.Story(), false)
		Eventually(done).WithTimeout(eventually(10)).Should(BeClosed())
		return resolve, orig
	}

	Describe("B3 RESOLVE races the late original", Label("B3"), func() {
		It("holds: the original claims first; RESOLVE reports what it made, never VOID", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			rs, orig := b3(ctx, w)
			Expect(orig.Code).To(Equal(http.StatusOK), orig.String())
			Expect(rs.Outcome).To(Equal(history.OutcomeSucceeded), rs.String())
			Expect(apiStat(w, 1, "voids")).To(BeZero())
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{pid("u1", "K1") + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{pid("u1", "K1"): ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a non-atomic resolve reports VOID over a charge", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NonAtomicResolve}})
			rs, orig := b3(ctx, w)
			Expect(orig.Code).To(Equal(http.StatusOK), orig.String())
			Expect(rs.Outcome).To(Equal(history.OutcomeVoid))
			Expect(w.psp.Charges()).To(HaveLen(1))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindEffectAfterVoid))
		}, SpecTimeout(time.Minute))
	})

	// B4: the buyer comes back at 7200 with K1, after the key record expired.
	b4 := func(ctx SpecContext, w *world) (first, back phone.Reply) {
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		first = ph.Send(ctx, "K1", phone.Story(), false)
		Expect(first.Code).To(Equal(http.StatusOK), first.String())
		Expect(w.st.AdvanceClocks(storytime.D(storytime.BuyerBack))).To(Succeed())
		back = ph.Send(ctx, "K1", phone.Story(), true)
		Expect(w.stat("claims")).To(Equal(int64(2)), "the expired record was not claimed again")
		return first, back
	}

	Describe("B4 buyer back after the key window", Label("B4"), func() {
		It("holds: the ledger row answers SUCCEEDED, nothing reaches the PSP, the record is rewritten", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true})
			id := pid("u1", "K1")
			first, back := b4(ctx, w)
			Expect(back.Code).To(Equal(http.StatusOK), back.String())
			Expect(back.PaymentID).To(Equal(first.PaymentID))
			Expect(w.stat("psp_calls")).To(Equal(int64(1)))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			rec := w.record(ctx, "u1", "K1")
			Expect(rec.State).To(Equal(keystore.Done))
			Expect(rec.ExpiresAt).To(BeNumerically(">", time.Now().Add(storytime.D(storytime.BuyerBack)).UnixNano()), "record rewritten with a fresh window")
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: no durable guard and a random payment id charge twice", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{noResolver: true, mutants: []mutant.Switch{mutant.NoDurableGuard}})
			first, back := b4(ctx, w)
			Expect(back.Code).To(Equal(http.StatusOK), back.String())
			Expect(back.PaymentID).NotTo(Equal(first.PaymentID))
			Expect(w.payments(ctx)).To(HaveLen(2))
			Expect(w.psp.Charges()).To(HaveLen(2))
			// Two kinds, both this bug: the second charge, and the one scope
			// answered with two payment ids (pay_7, then the new one), which
			// is how the buyer's client sees it.
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCharge, checker.KindInconsistentAnswer))
		}, SpecTimeout(time.Minute))
	})

	// B5: an expired key record still present: the owner died after the PSP
	// call, leaving IN_PROGRESS; the resolver settles the row; the phone's
	// resolve hears succeeded; its retry comes after the record expired.
	b5 := func(ctx SpecContext, w *world) (rs, retry phone.Reply) {
		id := pid("u1", "K1")
		w.lbAdmin(http.MethodPut, "/route?pin=0")
		Expect(faults.FailpointAt(w.st.APIs[0].Admin, api.AfterPSPCall).Arm("crash")).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r1.Code).To(Equal(http.StatusBadGateway), r1.String())
		Expect(w.st.APIs[0].Proc.Wait(eventually(1))).To(MatchError(ContainSubstring("exit status 86")))
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
		rs = ph.Resolve(ctx, "K1")
		Expect(w.st.AdvanceClocks(storytime.D(storytime.KeyWindow + 10))).To(Succeed())
		rec := w.record(ctx, "u1", "K1")
		Expect(rec).NotTo(BeNil(), "the expired record must still be present")
		Expect(rec.State).To(Equal(keystore.InProgress))
		Expect(rec.ExpiresAt).To(BeNumerically("<", time.Now().Add(storytime.D(storytime.KeyWindow)).UnixNano()), "the record is expired on the tiers' clock")
		retry = ph.Send(ctx, "K1", phone.Story(), true)
		return rs, retry
	}

	Describe("B5 expired key record still present", Label("B5"), func() {
		It("holds: the read path treats it as absent and the durable guard answers", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			rs, retry := b5(ctx, w)
			Expect(rs.Outcome).To(Equal(history.OutcomeSucceeded))
			Expect(retry.Code).To(Equal(http.StatusOK), retry.String())
			Expect(retry.PaymentID).To(Equal(id))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Expect(w.record(ctx, "u1", "K1").State).To(Equal(keystore.Done))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a read path that trusts presence answers a stale in-progress", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{mutants: []mutant.Switch{mutant.ReadPathTrustsPresence}})
			rs, retry := b5(ctx, w)
			Expect(rs.Outcome).To(Equal(history.OutcomeSucceeded))
			Expect(retry.Outcome).To(Equal(history.OutcomeInProgress), retry.String())
			// Two kinds, both this bug: succeeded then a stale in-progress for
			// one scope, and that stale answer is the client's last word on a
			// charged payment (the record stays until its late cleanup, so a
			// further retry would hear the same).
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindInconsistentAnswer, checker.KindFailedButCharged))
		}, SpecTimeout(time.Minute))
	})

	// B6: a partial refund (1000 of 3000) whose reply the PSP holds past the
	// API's deadline; the resolver settles it.
	b6 := func(ctx SpecContext, w *world) (int, string) {
		id := pid("u1", "K1")
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r.Code).To(Equal(http.StatusOK), r.String())
		held := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{Op: "refund", Times: 1}})
		code, status, err := ph.Refund(ctx, id, 1000)
		Expect(err).NotTo(HaveOccurred())
		Expect(held.Fired()).To(Equal(int64(1)), "the refund's reply was not held")
		Eventually(func() string { return w.payment(ctx, id).RefundState }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Refunded))
		return code, status
	}

	Describe("B6 a refund times out", Label("B6"), func() {
		It("holds: recorded UNKNOWN, retried with pay_7:cancel:refund until settled; one refund", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			code, status := b6(ctx, w)
			Expect(code).To(Equal(http.StatusAccepted))
			Expect(status).To(Equal("refund_pending"))
			Expect(pspKeys(w.psp.Refunds())).To(Equal([]string{id + ":cancel:refund"}))
			Expect(*w.psp.Refunds()[0].Input.Amount).To(Equal(int64(1000)))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		}, SpecTimeout(time.Minute))

		It("caught: a fresh refund key per retry refunds twice", func(ctx SpecContext) {
			w := newWorld(ctx, worldOpts{mutants: []mutant.Switch{mutant.FreshRefundKey}})
			b6(ctx, w)
			// Two refunds of 1000 stay within the 3000 charge; they are one
			// refund request (its id rides in the refund's metadata) carried
			// out twice under two keys.
			Expect(w.psp.Refunds()).To(HaveLen(2))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleRefund))
		}, SpecTimeout(time.Minute))
	})
})
