package delivery

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

const ev7 = "pay_7:SUCCEEDED"

var _ = Describe("D. Queues and logs", func() {
	Describe("D1: the relay publishes ev_7 and crashes before deleting the row, twice", Label("D1"), func() {
		run := func(ctx context.Context, switches string) (*world, *checker.Result) {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{mutant: switches})
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(12000)))
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			for i := 1; i <= 2; i++ {
				r := w.startRelay(ctx, fmt.Sprintf("relay-%d", i), relayOpts{arm: relay.AfterPublishBeforeDelete + "=crash"})
				expectCrashed(r)
			}
			w.startRelay(ctx, "relay-3", relayOpts{})
			w.settle(ctx, true)
			Expect(copiesOf(ctx, w.topic, ev7, true)).To(Equal(3), "three sends, three copies in the log")
			return w, nil
		}
		It("holds: the inbox drops both repeats; m1 12000 -> 15000, one notification", func(ctx SpecContext) {
			w, _ := run(ctx, "")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(1))
			Expect(s.Alerts).To(Equal(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught: worker-no-inbox credits every copy (double-credit)", func(ctx SpecContext) {
			w, _ := run(ctx, string(mutant.WorkerNoInbox))
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 3}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(21000)))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit))
		})
		It("caught: relay-delete-before-publish deletes the row first, so the crash between its steps loses ev_7 (lost-effect)", func(ctx SpecContext) {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{})
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			r := w.startRelay(ctx, "relay-1", relayOpts{arm: relay.AfterPublishBeforeDelete + "=crash", mutants: string(mutant.RelayDeleteFirst)})
			expectCrashed(r)
			// The row went before the crash: no relay can publish ev_7 now.
			// pay_8 shows the pipeline still delivers and is quiet after.
			w.startRelay(ctx, "relay-2", relayOpts{mutants: string(mutant.RelayDeleteFirst)})
			w.seedPayment(ctx, "pay_8", "u1", "K2", "m1", 500)
			w.settle(ctx, true)
			Expect(copiesOf(ctx, w.topic, ev7, true)).To(BeZero())
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{"pay_8:SUCCEEDED": 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(12500)))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindLostEffect))
		})
	})

	Describe("D4: worker w1 commits and pushes, dies before acknowledging; redelivered to w2", Label("D4"), func() {
		run := func(ctx context.Context, switches string) *world {
			w := newWorld(ctx)
			w1 := w.startWorker(ctx, "w1", workerOpts{mutant: switches, arm: worker.AfterPushBeforeSent + "=crash"})
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(12000)))
			w.startRelay(ctx, "relay-1", relayOpts{})
			expectCrashed(w1)
			Expect(w.screen(ctx, "u1").Alerts).To(Equal(1), "w1 pushed before it died")
			Expect(removeMember(ctx, w.group, "w1")).To(Succeed())
			w.startWorker(ctx, "w2", workerOpts{mutant: switches})
			w.settle(ctx, true)
			Expect(copiesOf(ctx, w.topic, ev7, true)).To(Equal(1))
			return w
		}
		It("holds: no second credit; w2 finds the notification PENDING and resends with the same replace id", func(ctx SpecContext) {
			w := run(ctx, "")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			st, _ := w.notifState(ctx, ev7)
			Expect(st).To(Equal(worker.StateSent))
			s := w.screen(ctx, "u1")
			Expect(s.Shown).To(HaveLen(1))
			Expect(s.Shown[0].ID).To(Equal("pay_7"))
			Expect(s.Shown[0].Deliveries).To(Equal(2))
			Expect(s.Alerts).To(Equal(2))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught: worker-no-inbox credits the redelivery again (double-credit)", func(ctx SpecContext) {
			w := run(ctx, string(mutant.WorkerNoInbox))
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 2}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(18000)))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit))
		})
	})

	Describe("D2: idempotent producer: a retried batch within a session, then a new session", Label("D2"), func() {
		run := func(ctx context.Context, switches string) *world {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{mutant: switches})
			r1 := w.startRelay(ctx, "relay-1", relayOpts{brokers: srv.KafkaProxied})
			// Warm the session up (metadata, producer id, connections)
			// with another buyer's payment, so the lost reply below is
			// the reply to ev_7's produce request.
			w.seedPayment(ctx, "pay_6", "u3", "K1", "m3", 700)
			Eventually(ctx, w.outboxRows).WithTimeout(30 * time.Second).Should(BeZero())
			Expect(faults.FailpointAt(r1.Admin, relay.AfterPublishBeforeDelete).Arm("crash")).To(Succeed())
			undo, err := srv.KafkaLink.LoseReply()
			Expect(err).NotTo(HaveOccurred())
			fired := srv.KafkaLink.Fired()
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			// The produce request reached the broker and its reply was
			// dropped: the producer must retry the same batch.
			Eventually(ctx, func() (int, error) { return copiesOf(ctx, w.topic, ev7, false) }).
				WithTimeout(30 * time.Second).Should(Equal(1))
			Eventually(srv.KafkaLink.Fired).WithTimeout(10 * time.Second).Should(BeNumerically(">", fired))
			Expect(undo()).To(Succeed())
			expectCrashed(r1) // the retry was acknowledged; the row was not deleted
			Expect(copiesOf(ctx, w.topic, ev7, false)).To(Equal(1), "within a session the broker keeps one copy of a retried batch")
			w.startRelay(ctx, "relay-2", relayOpts{})
			w.settle(ctx, true)
			Expect(copiesOf(ctx, w.topic, ev7, true)).To(Equal(2), "a new session re-sends ev_7 as a new record")
			return w
		}
		It("holds: two copies after the restart, one credit", func(ctx SpecContext) {
			w := run(ctx, "")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1, "pay_6:SUCCEEDED": 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			Expect(w.screen(ctx, "u1").Shown).To(HaveLen(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught: worker-no-inbox credits the new session's copy (double-credit)", func(ctx SpecContext) {
			w := run(ctx, string(mutant.WorkerNoInbox))
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 2, "pay_6:SUCCEEDED": 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(18000)))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit))
		})
	})

	Describe("D3: transactional relay (transactional id relay-1) on real Kafka", Label("D3"), func() {
		// crash runs session 1 to its failpoint, then session 2 with the
		// same transactional id; it returns the log's copies of ev_7 as a
		// read_committed and a read_uncommitted reader see them.
		crash := func(ctx context.Context, w *world, point string) (committed, uncommitted int) {
			txnID := "relay-1." + w.name
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			s1 := w.startRelay(ctx, "relay-1-session-1", relayOpts{transactionalID: txnID, arm: point + "=crash"})
			expectCrashed(s1)
			w.startRelay(ctx, "relay-1-session-2", relayOpts{transactionalID: txnID})
			// Session 2 deletes the row only after its commit returned.
			Eventually(ctx, w.outboxRows).WithTimeout(30 * time.Second).Should(BeZero())
			var err error
			committed, err = copiesOf(ctx, w.topic, ev7, true)
			Expect(err).NotTo(HaveOccurred())
			uncommitted, err = copiesOf(ctx, w.topic, ev7, false)
			Expect(err).NotTo(HaveOccurred())
			return committed, uncommitted
		}
		It("holds (a): session 1 commits and dies before the delete; read_committed sees ev_7 twice, one credit", func(ctx SpecContext) {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{})
			c, u := crash(ctx, w, relay.AfterPublishBeforeDelete)
			w.settle(ctx, true)
			Expect([]int{c, u}).To(Equal([]int{2, 2}), "read_committed, read_uncommitted copies")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			Expect(w.screen(ctx, "u1").Shown).To(HaveLen(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("holds (b): session 1 dies before committing; session 2 aborts it: read_committed once, read_uncommitted twice", func(ctx SpecContext) {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{})
			c, u := crash(ctx, w, relay.BeforeCommitTransaction)
			w.settle(ctx, true)
			Expect([]int{c, u}).To(Equal([]int{1, 2}), "read_committed, read_uncommitted copies")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			Expect(w.screen(ctx, "u1").Shown).To(HaveLen(1))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		})
		It("caught (b): worker-no-inbox with read-uncommitted credits the aborted copy too (double-credit)", func(ctx SpecContext) {
			w := newWorld(ctx)
			w.startWorker(ctx, "worker-1", workerOpts{mutant: mutant.Set{mutant.WorkerNoInbox: true, mutant.ReadUncommitted: true}.String()})
			c, u := crash(ctx, w, relay.BeforeCommitTransaction)
			w.settle(ctx, false)
			Expect([]int{c, u}).To(Equal([]int{1, 2}), "read_committed, read_uncommitted copies")
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 2}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(18000)))
			Expect(w.history(ctx)).To(kit.HaveExactKindsWith(opts, checker.KindDoubleCredit))
		})
	})
})
