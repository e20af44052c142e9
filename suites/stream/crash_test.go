package stream

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"

	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// before and after are the story's payments around the crash: m1 12000 +
// 3000 before; m2's declined 500 and m3's 700 after. The truth: m1 = 15000,
// m3 = 700, no m2.
func (w *world) before(ctx context.Context) {
	w.succeed(ctx, "pay_1", "m1", 12000)
	w.succeed(ctx, "pay_7", "m1", 3000)
}

func (w *world) after(ctx context.Context) {
	w.decline(ctx, "pay_8", "m2", 500)
	w.succeed(ctx, "pay_9", "m3", 700)
}

var truth = map[string]int64{"m1": 15000, "m3": 700}

func totals(s map[string]row) map[string]int64 {
	out := map[string]int64{}
	for m, r := range s {
		out[m] = r.Total
	}
	return out
}

// restorePath is the points a run meets only while restoring.
var restorePath = map[string]bool{streamjob.MidFlush: true, streamjob.BeforeReplay: true}

var _ = Describe("the stream job crashes at each of its failpoints and recovers", Label("stream-crash"), func() {
	for _, point := range streamjob.Points {
		It("crash at "+point+": the restored job's sink equals the ledger", func(ctx SpecContext) {
			w := newWorld(ctx)
			w.startConnector(ctx, "connector", "")
			// Periodic checkpoints every 2 story seconds; the point is armed
			// once the job holds state and a completed checkpoint, so the
			// restore has something to restore.
			opts := jobOpts{every: "2"}
			j := w.startJob(ctx, "job-1", opts)
			w.before(ctx)
			w.waitSink(ctx, "m1", 15000)
			Eventually(func() int64 { return status(j).LastCompleted }).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 1))
			if restorePath[point] {
				Expect(j.Kill()).To(Succeed())
				w.after(ctx) // committed while the job is down: only the replay can count it
				opts.arm = point + "=1*crash"
				expectCrashed(w.startJobNoWait(ctx, "job-2", opts))
				opts.arm = ""
			} else {
				Expect(faults.FailpointAt(j.Admin, point).Arm("1*crash")).To(Succeed())
				w.after(ctx)
				expectCrashed(j)
			}
			j = w.startJob(ctx, "job-3", opts)
			e := w.finish(ctx, j)
			Expect(e.st.RestoredFrom).To(BeNumerically(">=", 1))
			Expect(totals(e.sink)).To(Equal(truth))
			Expect(e.res).To(matchers.HaveNoViolations())
		}, SpecTimeout(90*time.Second))
	}
})
