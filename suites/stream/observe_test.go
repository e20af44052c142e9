package stream

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/streamjob"
)

// row is one sink row as a reader sees it.
type row struct {
	Total, Tag int64
}

// sink reads the whole sink, keyed by merchant: a spec's payments fall on
// one day unless the run crosses midnight UTC, and then a merchant's rows
// are summed (tag: the highest) so the spec's totals still hold; the checker
// compares day by day.
func (w *world) sink(ctx context.Context) map[string]row {
	rows, err := w.pool.Query(ctx, `SELECT merchant, day, total, tag FROM stream_sink`)
	Expect(err).NotTo(HaveOccurred())
	defer rows.Close()
	out := map[string]row{}
	for rows.Next() {
		var m, d string
		var r row
		Expect(rows.Scan(&m, &d, &r.Total, &r.Tag)).To(Succeed())
		if prev, ok := out[m]; ok {
			r.Total += prev.Total
			r.Tag = max(r.Tag, prev.Tag)
		}
		out[m] = r
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return out
}

// waitSink waits until merchant's sink total is total.
func (w *world) waitSink(ctx context.Context, merchant string, total int64) row {
	var r row
	Eventually(func() int64 {
		r = w.sink(ctx)[merchant]
		return r.Total
	}).WithTimeout(30*time.Second).WithPolling(20*time.Millisecond).Should(Equal(total), "sink %s", merchant)
	return r
}

// copyAt is one record of the topic.
type copyAt struct {
	offset int64
	connector.Event
}

// records reads the world's topic from the start to its current end.
func (w *world) records(ctx context.Context) []copyAt {
	ends, err := srv.KafkaAdmin.ListEndOffsets(ctx, w.topic)
	Expect(err).NotTo(HaveOccurred())
	end, ok := ends.Lookup(w.topic, 0)
	Expect(ok).To(BeTrue())
	Expect(end.Err).NotTo(HaveOccurred())
	if end.Offset == 0 {
		return nil
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(srv.Brokers), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{w.topic: {0: kgo.NewOffset().AtStart()}}))
	Expect(err).NotTo(HaveOccurred())
	defer kc.Close()
	var out []copyAt
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for len(out) == 0 || out[len(out)-1].offset < end.Offset-1 {
		f := kc.PollFetches(rctx)
		Expect(f.Err0()).NotTo(HaveOccurred())
		f.EachRecord(func(r *kgo.Record) {
			e, err := connector.Decode(r.Value)
			Expect(err).NotTo(HaveOccurred())
			out = append(out, copyAt{r.Offset, e})
		})
	}
	return out
}

// copies waits until the topic holds at least n copies of event id and
// returns them: the proof a re-publication really reached the job's input.
func (w *world) copies(ctx context.Context, id string, n int) []copyAt {
	var got []copyAt
	Eventually(func() int {
		got = got[:0]
		for _, c := range w.records(ctx) {
			if c.EventID == id {
				got = append(got, c)
			}
		}
		return len(got)
	}).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).Should(BeNumerically(">=", n), "copies of %s on the topic", id)
	return got
}

// quiesce waits until every final move of the ledger is on the topic and
// the job has read past the last copy of any of them.
func (w *world) quiesce(ctx context.Context, job *proc) streamjob.Status {
	final := map[string]bool{}
	rows, err := w.pool.Query(ctx, `SELECT payment_id || ':' || state FROM payments WHERE state IN ('SUCCEEDED','FAILED')`)
	Expect(err).NotTo(HaveOccurred())
	for rows.Next() {
		var id string
		Expect(rows.Scan(&id)).To(Succeed())
		final[id] = true
	}
	rows.Close()
	var last int64 = -1
	Eventually(func() []string {
		var missing []string
		seen := map[string]bool{}
		for _, c := range w.records(ctx) {
			if final[c.EventID] {
				seen[c.EventID] = true
				last = max(last, c.offset)
			}
		}
		for id := range final {
			if !seen[id] {
				missing = append(missing, id)
			}
		}
		return missing
	}).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).Should(BeEmpty(), "final moves missing from the topic")
	var st streamjob.Status
	Eventually(func() (int64, error) {
		var err error
		st, err = streamjob.ReadStatus(job.Admin)
		return st.NextOffset, err
	}).WithTimeout(30*time.Second).WithPolling(20*time.Millisecond).Should(BeNumerically(">", last), "job %s reading past offset %d", job.Name(), last)
	return st
}

// check records the ledger's truth (one credit per succeeded payment, with
// the ledger's day of it) and a read of every sink row, and runs the
// checker on that history.
func (w *world) check(ctx context.Context, st streamjob.Status) *checker.Result {
	rec := history.NewRecorder()
	rows, err := w.pool.Query(ctx, `SELECT payment_id, merchant, amount, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
 (extract(epoch FROM updated_at) * 1e9)::bigint FROM payments WHERE state = 'SUCCEEDED'`)
	Expect(err).NotTo(HaveOccurred())
	for rows.Next() {
		var id, m, day string
		var amount, at int64
		Expect(rows.Scan(&id, &m, &amount, &day, &at)).To(Succeed())
		ret := at
		Expect(rec.Record(history.Op{Process: "ledger-" + id, Op: history.OpCredit, Call: at, Return: &ret, PaymentID: id,
			Input: history.Input{Merchant: m, Amount: history.Int64(amount), EventID: id + ":SUCCEEDED", Day: day}})).To(Succeed())
	}
	rows.Close()
	rows, err = w.pool.Query(ctx, `SELECT merchant, day, total, tag FROM stream_sink ORDER BY merchant, day`)
	Expect(err).NotTo(HaveOccurred())
	at := history.Now()
	meta := map[string]string{"restored_from": fmt.Sprint(st.RestoredFrom), "version": fmt.Sprint(st.Version)}
	for rows.Next() {
		var m, day string
		var total, tag int64
		Expect(rows.Scan(&m, &day, &total, &tag)).To(Succeed())
		at++
		ret := at
		Expect(rec.Record(history.Op{Process: "sink-reader", Op: history.OpSink, Call: at, Return: &ret,
			Input: history.Input{Merchant: m, Day: day, Metadata: meta}, Output: &history.Output{Total: history.Int64(total), Tag: history.Int64(tag)}})).To(Succeed())
	}
	rows.Close()
	res := checker.Check(rec.History(), checker.CheckOptions{})
	Expect(res.Invalid).To(BeEmpty())
	Expect(res.Unknown).To(BeEmpty())
	for _, v := range res.Violations {
		GinkgoWriter.Printf("violation %s %s: %s\n", v.Kind, v.Merchant, v.Message)
	}
	return res
}

// status reads a job's status.
func status(p *proc) streamjob.Status {
	st, err := streamjob.ReadStatus(p.Admin)
	Expect(err).NotTo(HaveOccurred())
	return st
}

// connStatus reads a connector's status.
func connStatus(p *proc) connector.Status {
	st, err := connector.ReadStatus(p.Admin)
	Expect(err).NotTo(HaveOccurred())
	return st
}

// settled waits until the connector has published and confirmed everything
// it received, so a later restart re-publishes nothing before this point.
func settled(p *proc) {
	Eventually(func() bool {
		st := connStatus(p)
		return st.Pending == 0 && st.Acked == st.Sent && st.Sent != "0/0"
	}).WithTimeout(30*time.Second).WithPolling(20*time.Millisecond).Should(BeTrue(), "connector %s settled", p.Name())
}
