package story

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// job is one incarnation of the stream job.
type job struct {
	p     *faults.Process
	admin string
}

// startStream starts the connector on R2's ledger database (it decodes the
// changes replication applies there, then R2's own writes after the
// promotion) and the first stream job, version 1 (it counts declined
// payments too: the bug the restore fixes), checkpointing only on request.
func (w *world) startStream(ctx context.Context) {
	w.startProc(ctx, "connector", connector.TierName, "-postgres", refstack.WithSearchPath(w.dsn2, "s_"+w.name),
		"-brokers", srv.brokers, "-topic", w.changes, "-slot", w.slot)
}

func (w *world) startJob(ctx context.Context, name string, version int) *job {
	args := []string{"-name", "job", "-postgres", refstack.WithSearchPath(w.dsn2, "t_"+w.name),
		"-brokers", srv.brokers, "-topic", w.changes, "-version", fmt.Sprint(version), "-checkpoint-every", "0"}
	if w.o.streamMutant != "" {
		args = append(args, "-mutant", string(w.o.streamMutant))
	}
	p, addrs := w.startProcArmed(ctx, name, streamjob.TierName, "", args...)
	return &job{p: p, admin: addrs["admin"]}
}

func (j *job) status() streamjob.Status {
	GinkgoHelper()
	st, err := streamjob.ReadStatus(j.admin)
	Expect(err).NotTo(HaveOccurred())
	return st
}

// sinkRow is one (merchant, day) row of the sink.
type sinkRow struct {
	Merchant, Day string
	Total, Tag    int64
}

func (w *world) sinkRows(ctx context.Context) []sinkRow {
	GinkgoHelper()
	rows, err := w.stream.Query(ctx, `SELECT merchant, day, total, tag FROM stream_sink ORDER BY merchant, day`)
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	var out []sinkRow
	for rows.Next() {
		var r sinkRow
		Expect(rows.Scan(&r.Merchant, &r.Day, &r.Total, &r.Tag)).To(Succeed())
		out = append(out, r)
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return out
}

// sinkTotals sums the sink per merchant (a story that crosses midnight UTC
// has two days; the checker compares day by day).
func (w *world) sinkTotals(ctx context.Context) map[string]int64 {
	out := map[string]int64{}
	for _, r := range w.sinkRows(ctx) {
		out[r.Merchant] += r.Total
	}
	return out
}

func (w *world) waitSink(ctx context.Context, want map[string]int64) {
	GinkgoHelper()
	Eventually(func() map[string]int64 { return w.sinkTotals(ctx) }).WithTimeout(eventually(15)).WithPolling(20 * time.Millisecond).
		Should(Equal(want))
}

// changeCopies lists the event ids on the connector's topic, in log order.
func (w *world) changeCopies(ctx context.Context) (ids []string, last map[string]int64) {
	GinkgoHelper()
	ends, err := srv.adm.ListEndOffsets(ctx, w.changes)
	Expect(err).NotTo(HaveOccurred())
	end, ok := ends.Lookup(w.changes, 0)
	Expect(ok).To(BeTrue())
	last = map[string]int64{}
	if end.Offset == 0 {
		return nil, last
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(srv.brokers), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{w.changes: {0: kgo.NewOffset().AtStart()}}))
	Expect(err).NotTo(HaveOccurred())
	defer kc.Close()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var at int64 = -1
	for at < end.Offset-1 {
		f := kc.PollFetches(rctx)
		Expect(f.Err0()).NotTo(HaveOccurred())
		f.EachRecord(func(r *kgo.Record) {
			at = r.Offset
			e, err := connector.Decode(r.Value)
			Expect(err).NotTo(HaveOccurred())
			if e.EventID != "" {
				ids = append(ids, e.EventID)
				last[e.EventID] = r.Offset
			}
		})
	}
	return ids, last
}

// quiesceStream waits until every final move in R2's ledger is on the
// change topic and the job has read past its last copy.
func (w *world) quiesceStream(ctx context.Context, j *job) streamjob.Status {
	GinkgoHelper()
	var finals []string
	rows, err := w.pool2.Query(ctx, `SELECT payment_id || ':' || state FROM payments WHERE state IN ('SUCCEEDED','FAILED')`)
	Expect(err).NotTo(HaveOccurred())
	for rows.Next() {
		var id string
		Expect(rows.Scan(&id)).To(Succeed())
		finals = append(finals, id)
	}
	rows.Close()
	var last int64 = -1
	Eventually(func(g Gomega) {
		_, at := w.changeCopies(ctx)
		for _, id := range finals {
			o, ok := at[id]
			g.Expect(ok).To(BeTrue(), "%s not on the change topic", id)
			last = max(last, o)
		}
	}).WithTimeout(eventually(15)).WithPolling(50 * time.Millisecond).Should(Succeed())
	var st streamjob.Status
	Eventually(func() int64 { st = j.status(); return st.NextOffset }).WithTimeout(eventually(15)).WithPolling(20*time.Millisecond).
		Should(BeNumerically(">", last), "the job reading past offset %d", last)
	return st
}

// sinkReads records a read of every sink row, for the checker.
func (w *world) sinkReads(ctx context.Context, st streamjob.Status) {
	GinkgoHelper()
	meta := map[string]string{"restored_from": fmt.Sprint(st.RestoredFrom), "version": fmt.Sprint(st.Version)}
	for _, r := range w.sinkRows(ctx) {
		p := w.rec.Begin("sink-reader", history.OpSink, "", history.Input{Merchant: r.Merchant, Day: r.Day, Metadata: meta})
		Expect(p.End(history.Output{Total: history.Int64(r.Total), Tag: history.Int64(r.Tag)})).To(Succeed())
	}
}
