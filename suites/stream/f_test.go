package stream

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// end is a spec's end state: the sink after quiescence, the restored job's
// status, and the checker's verdict on ledger truth plus sink reads.
type end struct {
	w    *world
	sink map[string]row
	st   streamjob.Status
	res  *checker.Result
}

func (w *world) finish(ctx context.Context, job *proc) end {
	st := w.quiesce(ctx, job)
	return end{w: w, sink: w.sink(ctx), st: st, res: w.check(ctx, st)}
}

// f1 is SCENARIOS.md F1's restore: v1 counted the declined m2 payment after
// checkpoint 1; the job crashes and restores from 1 as v2.
func f1(ctx context.Context, mut string) (end, row) {
	w := newWorld(ctx)
	w.startConnector(ctx, "connector", "")
	v1 := w.startJob(ctx, "job-v1", jobOpts{version: 1, mutant: mut})
	w.succeed(ctx, "pay_1", "m1", 12000)
	w.waitSink(ctx, "m1", 12000)
	id, err := streamjob.TakeCheckpoint(v1.Admin)
	Expect(err).NotTo(HaveOccurred())
	Expect(id).To(Equal(int64(1)))
	w.succeed(ctx, "pay_7", "m1", 3000)
	w.decline(ctx, "pay_8", "m2", 500)
	w.waitSink(ctx, "m1", 15000)
	m2 := w.waitSink(ctx, "m2", 500) // v1 counted the declined payment
	Expect(v1.Kill()).To(Succeed())
	v2 := w.startJob(ctx, "job-v2", jobOpts{version: 2, mutant: mut})
	return w.finish(ctx, v2), m2
}

var _ = Describe("F1: the job restores from checkpoint c after writing a total for a payment later declined", Label("F1"), func() {
	It("holds: the full flush rewrites m1 with tag c and deletes m2; the replay brings m1 to 15000", func(ctx SpecContext) {
		e, m2 := f1(ctx, "")
		Expect(m2.Tag).To(Equal(int64(1)), "m2 was written after barrier 1")
		Expect(e.st.RestoredFrom).To(Equal(int64(1)))
		Expect(e.st.Flushed).To(Equal(1), "the flush deleted exactly m2")
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}}))
		Expect(e.res).To(matchers.HaveNoViolations())
	}, SpecTimeout(90*time.Second))

	It("is caught without the full flush: m2 = 500 stays, sink-divergence", func(ctx SpecContext) {
		e, _ := f1(ctx, string(mutant.StreamNoFullFlush))
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}, "m2": {500, 1}}))
		Expect(e.res).To(matchers.HaveExactViolations(checker.KindSinkDivergence))
		Expect(e.res.Violations[0].Merchant).To(Equal("m2"))
	}, SpecTimeout(90*time.Second))
})

// f2 is F1 with the completion notice of checkpoint 1 dropped: the m2 write
// lands between barrier 1 and a notice that never arrives.
func f2(ctx context.Context, mut string) (end, row, *proc) {
	w := newWorld(ctx)
	w.startConnector(ctx, "connector", "")
	v1 := w.startJob(ctx, "job-v1", jobOpts{version: 1, mutant: mut, arm: streamjob.BeforeNotify + "=1*error"})
	w.succeed(ctx, "pay_1", "m1", 12000)
	w.waitSink(ctx, "m1", 12000)
	id, err := streamjob.TakeCheckpoint(v1.Admin)
	Expect(err).NotTo(HaveOccurred())
	Expect(id).To(Equal(int64(1)))
	Eventually(func() (int64, error) { return faults.FailpointAt(v1.Admin, streamjob.BeforeNotify).Fired() }).
		WithTimeout(10*time.Second).Should(Equal(int64(1)), "the notice of checkpoint 1 was dropped")
	st := status(v1)
	Expect(st.BarrierTag).To(Equal(int64(1)))
	Expect(st.LastCompleted).To(Equal(int64(0)), "the sink never heard checkpoint 1 complete")
	w.succeed(ctx, "pay_7", "m1", 3000)
	w.decline(ctx, "pay_8", "m2", 500)
	w.waitSink(ctx, "m1", 15000)
	m2 := w.waitSink(ctx, "m2", 500)
	Expect(v1.Kill()).To(Succeed())
	v2 := w.startJob(ctx, "job-v2", jobOpts{version: 2, mutant: mut})
	return w.finish(ctx, v2), m2, v2
}

var _ = Describe("F2: sink writes between a barrier and its late completion notice", Label("F2"), func() {
	It("holds: the write carries the barrier's tag, so the flush finds and deletes m2", func(ctx SpecContext) {
		e, m2, _ := f2(ctx, "")
		Expect(m2.Tag).To(Equal(int64(1)), "the key that must not escape: tagged with barrier 1")
		Expect(e.st.RestoredFrom).To(Equal(int64(1)))
		Expect(e.st.Flushed).To(Equal(1))
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}}))
		Expect(e.res).To(matchers.HaveNoViolations())
	}, SpecTimeout(90*time.Second))

	It("is caught when writes carry the last completed checkpoint: m2 escapes the flush, sink-divergence", func(ctx SpecContext) {
		e, m2, _ := f2(ctx, string(mutant.StreamTagLastCompleted))
		Expect(m2.Tag).To(Equal(int64(0)), "tagged with the last completion the sink had heard")
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}, "m2": {500, 0}}))
		Expect(e.res).To(matchers.HaveExactViolations(checker.KindSinkDivergence))
		Expect(e.res.Violations[0].Merchant).To(Equal("m2"))
	}, SpecTimeout(90*time.Second))
})

// f3: the connector dies before confirming pay_7's position, so its
// successor publishes pay_7 again; the job crashes after counting pay_7 and
// restores from checkpoint 1, before both copies.
func f3(ctx context.Context, mut string) end {
	w := newWorld(ctx)
	c1 := w.startConnector(ctx, "connector-1", "")
	j1 := w.startJob(ctx, "job-1", jobOpts{mutant: mut})
	w.succeed(ctx, "pay_1", "m1", 12000)
	w.waitSink(ctx, "m1", 12000)
	settled(c1)
	id, err := streamjob.TakeCheckpoint(j1.Admin)
	Expect(err).NotTo(HaveOccurred())
	Expect(id).To(Equal(int64(1)))
	Expect(faults.FailpointAt(c1.Admin, connector.BeforeAck).Arm("error")).To(Succeed())
	w.succeed(ctx, "pay_7", "m1", 3000)
	w.waitSink(ctx, "m1", 15000)
	Expect(faults.FailpointAt(c1.Admin, connector.BeforeAck).Fired()).To(BeNumerically(">", 0), "the connector was refused its ack")
	Expect(j1.Kill()).To(Succeed())
	Expect(c1.Kill()).To(Succeed())
	w.startConnector(ctx, "connector-2", "")
	cs := w.copies(ctx, "pay_7:SUCCEEDED", 2)
	Expect(cs).To(HaveLen(2), "exactly one re-publication")
	j2 := w.startJob(ctx, "job-2", jobOpts{mutant: mut})
	return w.finish(ctx, j2)
}

var _ = Describe("F3: the change stream delivers ev_7 twice across the restore", Label("F3"), func() {
	It("holds: seen ids restored with the state; the first copy is counted, the second dropped", func(ctx SpecContext) {
		e := f3(ctx, "")
		Expect(e.st.RestoredFrom).To(Equal(int64(1)))
		Expect(e.st.Counted).To(Equal(int64(1)), "the replay counted pay_7 once")
		Expect(e.st.Duplicates).To(Equal(int64(1)), "and dropped its second copy")
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}}))
		Expect(e.res).To(matchers.HaveNoViolations())
	}, SpecTimeout(90*time.Second))

	It("is caught with seen ids in Valkey: the replay is dropped, m1 stays 12000, sink-divergence", func(ctx SpecContext) {
		e := f3(ctx, string(mutant.StreamSeenExternal))
		Expect(e.st.Counted).To(Equal(int64(0)))
		Expect(e.sink).To(Equal(map[string]row{"m1": {12000, 1}}))
		Expect(e.res).To(matchers.HaveExactViolations(checker.KindSinkDivergence))
		Expect(e.res.Violations[0].Merchant).To(Equal("m1"))
	}, SpecTimeout(90*time.Second))
})

// f4: pay_7's seen id expires when the heartbeats move event time past
// pay_7 + 7200 s; checkpoint 1 saves the floor; the job crashes; the
// connector (which never confirmed pay_7) publishes a copy after the restore.
func f4(ctx context.Context, mut string) (end, int) {
	w := newWorld(ctx)
	c1 := w.startConnector(ctx, "connector-1", "")
	j1 := w.startJob(ctx, "job-1", jobOpts{mutant: mut})
	w.succeed(ctx, "pay_1", "m1", 12000)
	w.waitSink(ctx, "m1", 12000)
	settled(c1)
	Expect(faults.FailpointAt(c1.Admin, connector.BeforeAck).Arm("error")).To(Succeed())
	w.succeed(ctx, "pay_7", "m1", 3000)
	w.waitSink(ctx, "m1", 15000)
	t7 := w.copies(ctx, "pay_7:SUCCEEDED", 1)[0].EventTime
	horizon := int64(storytime.D(7200))
	Expect(storytime.SetOffset(c1.Admin, storytime.D(7300))).To(Succeed())
	Eventually(func() int64 { return status(j1).Watermark }).WithTimeout(30*time.Second).
		Should(BeNumerically(">=", t7+horizon), "the heartbeats moved event time past pay_7 + 7200 s")
	id, err := streamjob.TakeCheckpoint(j1.Admin)
	Expect(err).NotTo(HaveOccurred())
	Expect(id).To(Equal(int64(1)))
	// The floor and the seen ids are read from the checkpoint row itself,
	// not from the job's status: what the restore will find is what
	// checkpoint 1 committed, whatever the job says of itself.
	var seen int
	var floor int64
	Expect(w.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM jsonb_object_keys(seen)), floor_ns FROM stream_checkpoints WHERE job = 'job' AND id = 1`).
		Scan(&seen, &floor)).To(Succeed())
	Expect(seen).To(Equal(0), "pay_7's timer fired before checkpoint 1")
	Expect(t7+horizon).To(BeNumerically("<=", floor), "checkpoint 1 saved a floor past pay_7 + 7200 s")
	Expect(j1.Kill()).To(Succeed())
	Expect(c1.Kill()).To(Succeed())
	j2 := w.startJob(ctx, "job-2", jobOpts{mutant: mut})
	w.startConnector(ctx, "connector-2", "")
	late := w.copies(ctx, "pay_7:SUCCEEDED", 2)[1]
	// The copy was already late before the crash: its event time is past
	// the horizon of the floor checkpoint 1 saved (the row, not j2's status).
	Expect(late.EventTime+horizon).To(BeNumerically("<=", floor), "the copy was already late before the crash")
	e := w.finish(ctx, j2)
	var logged int
	Expect(w.pool.QueryRow(ctx, `SELECT count(*) FROM stream_late WHERE event_id = 'pay_7:SUCCEEDED'`).Scan(&logged)).To(Succeed())
	return e, logged
}

var _ = Describe("F4: a copy already too late before the crash arrives after the restore", Label("F4"), func() {
	It("holds: the saved floor rejects it as late, counted and logged once", func(ctx SpecContext) {
		e, logged := f4(ctx, "")
		Expect(e.st.Late).To(Equal(int64(1)))
		Expect(logged).To(Equal(1))
		Expect(e.sink).To(Equal(map[string]row{"m1": {15000, 1}}))
		Expect(e.res).To(matchers.HaveNoViolations())
	}, SpecTimeout(90*time.Second))

	It("is caught without the floor: the late copy is counted twice, sink-divergence", func(ctx SpecContext) {
		e, logged := f4(ctx, string(mutant.StreamNoWatermarkFloor))
		Expect(logged).To(Equal(0))
		Expect(e.sink).To(Equal(map[string]row{"m1": {18000, 1}}))
		Expect(e.res).To(matchers.HaveExactViolations(checker.KindSinkDivergence))
		Expect(e.res.Violations[0].Merchant).To(Equal("m1"))
	}, SpecTimeout(90*time.Second))
})
