package delivery

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// Acceptance: killing the relay or a worker at any of its failpoints loses
// nothing. Two payments of two buyers and two merchants ride through each
// crash.
var _ = Describe("Kill at every failpoint", Label("kill-any-failpoint"), func() {
	DescribeTable("every SUCCEEDED payment ends with exactly one credit and one notification on screen",
		func(ctx SpecContext, tierName, point, txnID string) {
			w := newWorld(ctx)
			w.seedPayment(ctx, "pay_7", "u1", "K1", "m1", 3000)
			w.seedPayment(ctx, "pay_8", "u2", "K1", "m3", 500)
			arm := point + "=crash"
			if txnID != "" {
				txnID += "." + w.name
			}
			switch tierName {
			case relay.TierName:
				w.startWorker(ctx, "w1", workerOpts{})
				expectCrashed(w.startRelay(ctx, "relay-1", relayOpts{arm: arm, transactionalID: txnID}))
				w.startRelay(ctx, "relay-2", relayOpts{transactionalID: txnID})
			case worker.TierName:
				w1 := w.startWorker(ctx, "w1", workerOpts{arm: arm})
				w.startRelay(ctx, "relay-1", relayOpts{transactionalID: txnID})
				expectCrashed(w1)
				Expect(removeMember(ctx, w.group, "w1")).To(Succeed())
				w.startWorker(ctx, "w2", workerOpts{})
			}
			w.settle(ctx, true)
			Expect(w.creditsPerEvent(ctx)).To(Equal(map[string]int{ev7: 1, "pay_8:SUCCEEDED": 1}))
			Expect(w.readBalance(ctx, "m1")).To(Equal(int64(15000)))
			for _, ev := range []string{ev7, "pay_8:SUCCEEDED"} {
				st, _ := w.notifState(ctx, ev)
				Expect(st).To(Equal(worker.StateSent), ev)
			}
			for _, u := range []string{"u1", "u2"} {
				s := w.screen(ctx, u)
				Expect(s.Shown).To(HaveLen(1), u)
				Expect(s.Alerts).To(BeNumerically("<=", 2), u)
			}
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		},
		Entry("relay, idempotent: after-publish-before-delete", relay.TierName, relay.AfterPublishBeforeDelete, ""),
		Entry("relay, transactional: before-commit-transaction", relay.TierName, relay.BeforeCommitTransaction, "relay-1"),
		Entry("relay, transactional: after-publish-before-delete", relay.TierName, relay.AfterPublishBeforeDelete, "relay-1"),
		Entry("worker: after-commit-before-push", worker.TierName, worker.AfterCommitBeforePush, ""),
		Entry("worker: after-push-before-sent", worker.TierName, worker.AfterPushBeforeSent, ""),
		Entry("worker: before-offset-commit", worker.TierName, worker.BeforeOffsetCommit, ""),
	)
})
