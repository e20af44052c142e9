package shapes

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/targets/mailbox"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

const m9 = "m9"

// c3 is what one run of branch M leaves behind: where m9 was at each read,
// the parser's deliveries, and the locator at the end.
type c3 struct {
	w                     *world
	afterMove, afterDel   []string
	deliveries            []mailbox.Delivery
	others                []string
	locFolder             string
	locTombstone, locSeen bool
}

// runC3 plays branch M against the mail parser on real Kafka:
//
//  1. The queue holds m9's raw message (and a seeded number of others in
//     the same batch). parser-1 stores the batch and crashes before it
//     commits the offsets (failpoint).
//  2. The user moves m9 Inbox -> Archive.
//  3. Kafka redelivers the batch to parser-2, which crashes before
//     committing too.
//  4. The user deletes m9.
//  5. Kafka redelivers the batch to parser-3, which commits.
//
// Each crash is proven by the failpoint's exit status, each redelivery by the
// parser's own delivery rows: three deliveries of m9's offset.
func runC3(ctx context.Context, mutants ...mutant.Switch) *c3 {
	w := newWorld(ctx)
	set := mutant.Set{}
	for _, m := range mutants {
		set[m] = true
	}
	topic, group := "mail-"+w.name, "parsers-"+w.name
	w.Topic(ctx, topic)
	c := &c3{w: w}
	batch := []mailbox.Mail{}
	for i := range w.rng.IntN(3) {
		c.others = append(c.others, fmt.Sprintf("m%d", i+1))
	}
	for _, id := range c.others {
		batch = append(batch, mailbox.Mail{ID: id, Subject: "newsletter " + id})
	}
	batch = append(batch, mailbox.Mail{ID: m9, Subject: fmt.Sprintf("invoice %d", w.rng.IntN(10000))})
	GinkgoWriter.Printf("batch: %+v\n", batch)
	produce(ctx, topic, batch)

	api := w.start(ctx, "mailbox-api", mailbox.APITier, "", "-pg", w.dsn)
	user := &mailbox.User{Name: "user", Base: api.Addrs["http"], Rec: w.rec}
	parser := func(name, arm string) *proc {
		return w.start(ctx, name, mailbox.ParserTier, arm, "-name", name, "-pg", w.dsn, "-brokers", srv.Brokers,
			"-topic", topic, "-group", group, "-mutants", set.String())
	}
	crash := mailbox.BeforeOffsetCommit + "=crash"

	By("1. parser-1 stores m9 and crashes before committing the offset")
	expectCrashed(parser("parser-1", crash))
	Expect(removeMember(ctx, group, "parser-1")).To(Succeed())
	Expect(w.locate(ctx, m9)).To(Equal([]string{mailbox.Inbox}))

	By("2. the user moves m9 Inbox -> Archive")
	Expect(user.Move(ctx, m9, mailbox.Inbox, "Archive")).To(Equal(204))
	Expect(w.locate(ctx, m9)).To(Equal([]string{"Archive"}))

	By("3. Kafka redelivers the parse to parser-2, which crashes before committing")
	expectCrashed(parser("parser-2", crash))
	Expect(removeMember(ctx, group, "parser-2")).To(Succeed())
	c.afterMove = w.locate(ctx, m9)

	By("4. the user deletes m9")
	Expect(user.Delete(ctx, m9)).To(Equal(204))
	Expect(w.locate(ctx, m9)).To(BeEmpty())

	By("5. Kafka redelivers the parse to parser-3, which commits")
	parser("parser-3", "")
	Eventually(ctx, func() (int64, error) { return groupOffset(ctx, group, topic) }).
		WithTimeout(60 * time.Second).Should(Equal(int64(len(batch))))
	c.afterDel = w.locate(ctx, m9)

	var err error
	c.deliveries, err = mailbox.Deliveries(ctx, w.pool)
	Expect(err).NotTo(HaveOccurred())
	var parsers []string
	for _, d := range c.deliveries {
		if d.Message == m9 {
			parsers = append(parsers, d.Parser)
			Expect(d.Offset).To(Equal(int64(len(c.others))))
		}
	}
	Expect(parsers).To(Equal([]string{"parser-1", "parser-2", "parser-3"}), "m9's parse must be delivered three times")
	Expect(c.deliveries).To(HaveLen(3 * len(batch)))
	for _, id := range c.others {
		Expect(w.locate(ctx, id)).To(Equal([]string{mailbox.Inbox}), "%s was never moved", id)
	}
	c.locFolder, c.locTombstone, c.locSeen, err = mailbox.Locator(ctx, w.pool, m9)
	Expect(err).NotTo(HaveOccurred())
	return c
}

func (c *c3) stored() []bool {
	var out []bool
	for _, d := range c.deliveries {
		if d.Message == m9 {
			out = append(out, d.Stored)
		}
	}
	return out
}

// locate reads where a message is from the mail database (ground truth)
// and records the read.
func (w *world) locate(ctx context.Context, id string) []string {
	GinkgoHelper()
	p := w.rec.Begin("reader", history.OpLocate, "", history.Input{ShapeInput: history.ShapeInput{Message: id}})
	fs, err := mailbox.Locate(ctx, w.pool, id)
	Expect(err).NotTo(HaveOccurred())
	Expect(p.End(history.Output{ShapeOutput: history.ShapeOutput{Folders: history.Folders(fs...)}})).To(Succeed())
	return fs
}

// produce writes the batch to the topic's one partition, once each: the
// mail transfer agent handing messages to the queue.
func produce(ctx context.Context, topic string, batch []mailbox.Mail) {
	GinkgoHelper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.Brokers), kgo.DefaultProduceTopic(topic))
	Expect(err).NotTo(HaveOccurred())
	defer cl.Close()
	var recs []*kgo.Record
	for _, m := range batch {
		b, _ := json.Marshal(m)
		recs = append(recs, &kgo.Record{Key: []byte(m.ID), Value: b})
	}
	Expect(cl.ProduceSync(ctx, recs...).FirstErr()).To(Succeed())
}

// removeMember takes a crashed static member out of the group at once, as an
// orchestrator that saw the process die would.
func removeMember(ctx context.Context, group, instanceID string) error {
	resp, err := srv.KafkaAdmin.LeaveGroup(ctx, kadm.LeaveGroup(group).InstanceIDs(instanceID))
	if err != nil {
		return err
	}
	return resp.Error()
}

// groupOffset is the group's committed offset on partition 0, -1 when none.
func groupOffset(ctx context.Context, group, topic string) (int64, error) {
	resp, err := srv.KafkaAdmin.FetchOffsets(ctx, group)
	if err != nil {
		return -1, err
	}
	if err := resp.Error(); err != nil {
		return -1, err
	}
	o, ok := resp.Lookup(topic, 0)
	if !ok {
		return -1, nil
	}
	return o.At, o.Err
}

var _ = Describe("C3: condition on the durable record: a parse redelivered after the move, and after the delete", Label("C3"), func() {
	It("holds: put-if-absent on the locator M#m9 (a tombstone after delete): nothing reappears", func(ctx SpecContext) {
		c := runC3(ctx)
		Expect(c.stored()).To(Equal([]bool{true, false, false}))
		Expect(c.afterMove).To(Equal([]string{"Archive"}), "m9 never back in Inbox after the move")
		Expect(c.afterDel).To(BeEmpty(), "m9 nowhere after the delete")
		Expect([]any{c.locSeen, c.locTombstone, c.locFolder}).To(Equal([]any{true, true, ""}), "M#m9 is a tombstone")
		Expect(c.w.check(mailbox.StoreOps(c.deliveries)...)).To(matchers.HaveNoViolations())
	})
	It("caught: condition-on-folder-item: m9 reappears in Inbox after the move and after the delete (effect-resurrected)", func(ctx SpecContext) {
		c := runC3(ctx, mutant.ConditionOnFolderItem)
		Expect(c.stored()).To(Equal([]bool{true, true, true}))
		Expect(c.afterMove).To(Equal([]string{"Archive", mailbox.Inbox}))
		Expect(c.afterDel).To(Equal([]string{mailbox.Inbox}))
		res := c.w.check(mailbox.StoreOps(c.deliveries)...)
		// Exactly two findings, both effect-resurrected: one after the move,
		// one after the delete; nothing else.
		Expect(res).To(matchers.HaveExactViolations(checker.KindEffectResurrected, checker.KindEffectResurrected))
	})
})
