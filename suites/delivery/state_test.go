package delivery

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/push"
)

// settle waits until the path is quiet: the outbox is empty and the group has
// committed past the last record a reader at the workers' isolation level can
// see. It polls with a bounded deadline; no sleep stands in for it.
func (w *world) settle(ctx context.Context, readCommitted bool) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		rows, err := w.outboxRows(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rows).To(BeZero(), "outbox rows left")
		log, err := scanLog(ctx, w.topic, readCommitted)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(log).NotTo(BeEmpty(), "nothing published yet")
		off, err := groupOffset(ctx, w.group, w.topic)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(off).To(BeNumerically(">", log[len(log)-1].offset), "group %s behind the log", w.group)
	}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
}

// outboxRows counts the rows the relay has not deleted yet.
func (w *world) outboxRows(ctx context.Context) (int, error) {
	var n int
	err := w.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n)
	return n, err
}

// creditsPerEvent counts the credit rows of each event id.
func (w *world) creditsPerEvent(ctx context.Context) map[string]int {
	GinkgoHelper()
	rows, err := w.pool.Query(ctx, `SELECT event_id, count(*) FROM credits GROUP BY event_id`)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]int{}
	for rows.Next() {
		var ev string
		var n int
		Expect(rows.Scan(&ev, &n)).To(Succeed())
		out[ev] = n
	}
	Expect(rows.Err()).To(Succeed())
	return out
}

// notifState is the notification record's state for an event ("" if none).
func (w *world) notifState(ctx context.Context, eventID string) (state, verdict string) {
	GinkgoHelper()
	var v *string
	err := w.pool.QueryRow(ctx, `SELECT state, verdict FROM notif WHERE event_id = $1 AND channel = 'push'`, eventID).Scan(&state, &v)
	if err == pgx.ErrNoRows {
		return "", ""
	}
	Expect(err).NotTo(HaveOccurred())
	if v != nil {
		verdict = *v
	}
	return state, verdict
}

// screen reads a recipient's phone.
func (w *world) screen(ctx context.Context, recipient string) push.ScreenState {
	GinkgoHelper()
	s, err := w.phone.Screen(ctx, recipient)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// history merges the harness's ops, the credits (ground truth from the
// worker's credits table) and the push provider's notify ops.
func (w *world) history(ctx context.Context) history.History {
	GinkgoHelper()
	h := append(w.rec.History(), w.extra...)
	credits, err := kit.WorkerCredits(w.pool).Effects(ctx)
	Expect(err).NotTo(HaveOccurred())
	notes, err := w.phone.History(ctx)
	Expect(err).NotTo(HaveOccurred())
	return append(append(h, credits...), notes...)
}

// opts checks a history with m1's opening balance.
var opts = checker.CheckOptions{InitialBalances: map[string]int64{"m1": 12000}}
