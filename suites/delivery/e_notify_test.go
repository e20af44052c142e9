package delivery

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/dedup"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/worker"
)

var _ = Describe("E. Notifications", func() {
	Describe("E1: worker crash between push and SENT, then another redelivery (branch N)", Label("E1"), func() {
		// run: w1 dies after pushing, before SENT; w2 handles the
		// redelivery and dies before committing the offset; w3 gets a
		// third delivery. afterW2 is the screen after w2's death.
		run := func(ctx context.Context, switches string) (w *world, afterW2 int) {
			w = newWorld(ctx)
			w1 := w.startWorker(ctx, "w1", workerOpts{mutant: switches, arm: worker.AfterPushBeforeSent + "=crash"})
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			w.startRelay(ctx, "relay-1", relayOpts{})
			expectCrashed(w1)
			Expect(removeMember(ctx, w.group, "w1")).To(Succeed())
			w2 := w.startWorker(ctx, "w2", workerOpts{mutant: switches, arm: worker.BeforeOffsetCommit + "=crash"})
			expectCrashed(w2)
			afterW2 = len(w.screen(ctx, "u1").Shown)
			Expect(removeMember(ctx, w.group, "w2")).To(Succeed())
			w.startWorker(ctx, "w3", workerOpts{mutant: switches})
			w.settle(ctx, true)
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			return w, afterW2
		}
		It("holds: one notification shown, one unavoidable repeat alert", func(ctx SpecContext) {
			w, afterW2 := run(ctx, "")
			Expect(afterW2).To(Equal(1))
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(1))
			Expect(s.Alerts).To(Equal(2))
			st, _ := w.notifState(ctx, ev7)
			Expect(st).To(Equal(worker.StateSent))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught (a): no record and no replace id stack two, then three (notification-stacked)", func(ctx SpecContext) {
			w, afterW2 := run(ctx, mutant.Set{mutant.NoNotifRecord: true, mutant.NoReplaceID: true}.String())
			Expect(afterW2).To(Equal(2))
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(3))
			Expect(s.Alerts).To(Equal(3))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindNotificationStacked))
		})
		It("caught (b): a replace id without the record shows one but alerts three times (notification-stacked)", func(ctx SpecContext) {
			w, afterW2 := run(ctx, string(mutant.NoNotifRecord))
			Expect(afterW2).To(Equal(1))
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(1))
			Expect(s.Alerts).To(Equal(3))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindNotificationStacked))
		})
	})

	Describe("E2: the worker commits (event DONE) and crashes before sending (branch R)", Label("E2"), func() {
		// pay_8 (another buyer, another merchant) goes through untouched,
		// so the history records notifications and a missing one is seen.
		// It succeeds after w1's crash: the worker applies a poll as one
		// batch, so a payment in w1's batch would be committed and left
		// PENDING with ev_7.
		run := func(ctx context.Context, switches string) *world {
			w := newWorld(ctx)
			w1 := w.startWorker(ctx, "w1", workerOpts{mutant: switches, arm: worker.AfterCommitBeforePush + "=crash"})
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			w.startRelay(ctx, "relay-1", relayOpts{})
			expectCrashed(w1)
			Expect(w.screen(ctx, "u1").Alerts).To(Equal(0), "w1 died before pushing")
			st, _ := w.notifState(ctx, ev7)
			Expect(st).To(Equal(worker.StatePending))
			Expect(removeMember(ctx, w.group, "w1")).To(Succeed())
			w.seedPayment(ctx, "pay_8", "u2", "K1", "m3", 500)
			w.startWorker(ctx, "w2", workerOpts{mutant: switches})
			w.settle(ctx, true)
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1, "pay_8:SUCCEEDED": 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			Expect(w.screen(ctx, "u2").Shown).To(HaveLen(1))
			return w
		}
		It("holds: the redelivery finds the record PENDING and finishes the send", func(ctx SpecContext) {
			w := run(ctx, "")
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(1))
			Expect(s.Alerts).To(Equal(1))
			st, _ := w.notifState(ctx, ev7)
			Expect(st).To(Equal(worker.StateSent))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught: ack-only-on-redelivery credits but never notifies (lost-effect)", func(ctx SpecContext) {
			w := run(ctx, string(mutant.AckOnlyOnRedelivery))
			Expect(w.screen(ctx, "u1").Shown).To(BeEmpty())
			st, _ := w.notifState(ctx, ev7)
			Expect(st).To(Equal(worker.StatePending))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindLostEffect))
		})
	})

	Describe("E3: the same logical message twice in its window, then the cache down", Label("E3"), func() {
		// Reminders come from another system (billing), straight onto the
		// topic; two requests for one invoice are one logical message.
		var (
			w    *world
			link *faults.Link
		)
		start := func(ctx context.Context, switches string) {
			vk, err := dedup.Dial(srv.ValkeyAddr)
			Expect(err).NotTo(HaveOccurred())
			defer vk.Close()
			Expect(dedup.CheckNoEviction(ctx, vk)).To(Succeed(), "an evicted window key turns into a duplicate")
			w = newWorld(ctx)
			link, err = srv.Toxi.Link("valkey-"+w.name, srv.ValkeyAddr)
			Expect(err).NotTo(HaveOccurred())
			w.startWorker(ctx, "worker-1", workerOpts{mutant: switches, valkey: link.Addr(), extra: []string{"-user-cap", "2", "-dedup-window", "1h"}})
		}
		It("holds: one sent; with the cache down it fails open; caps count only messages that passed dedup", func(ctx SpecContext) {
			start(ctx, "")
			r1 := w.remind(ctx, "rem-1", "inv_1")
			r2 := w.remind(ctx, "rem-2", "inv_1")
			Expect(w.verdicts(ctx, r1, r2)).To(Equal([]string{"SENT/send", "DROPPED/duplicate"}))
			Expect(w.screen(ctx, w.recipient()).Shown).To(HaveLen(1))

			Expect(link.Disable()).Error().NotTo(HaveOccurred())
			r3 := w.remind(ctx, "rem-3", "inv_2")
			Expect(w.verdicts(ctx, r3)).To(Equal([]string{"SENT/fail-open"}), "the cache was down and the worker sent anyway")
			Expect(link.Enable()).To(Succeed())

			// inv_1 and inv_3 use the allowance of 2; the dropped duplicate
			// and the fail-open send did not.
			r4 := w.remind(ctx, "rem-4", "inv_3")
			r5 := w.remind(ctx, "rem-5", "inv_4")
			Expect(w.verdicts(ctx, r4, r5)).To(Equal([]string{"SENT/send", "DROPPED/capped"}))
			s := w.screen(ctx, w.recipient())
			Expect(s.Shown).To(HaveLen(3))
			Expect(s.Alerts).To(Equal(3))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught: no-dedup-key sends both (notification-stacked)", func(ctx SpecContext) {
			start(ctx, string(mutant.NoDedupKey))
			r1 := w.remind(ctx, "rem-1", "inv_1")
			r2 := w.remind(ctx, "rem-2", "inv_1")
			Expect(w.verdicts(ctx, r1, r2)).To(Equal([]string{"SENT/unguarded", "SENT/unguarded"}))
			s := w.screen(ctx, w.recipient())
			Expect(s.Shown).To(HaveLen(2))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindNotificationStacked))
		})
	})
})
