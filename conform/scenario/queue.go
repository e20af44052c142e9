package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/faults"
)

// Queue is the service's consumer, when the config has a consumer
// section: the run's own topic (queue) and the group the service consumes
// it in, on the config's broker.
type Queue struct {
	Cfg   *config.Consumer
	Topic string
	Group string
	// Broker produces the records and reads the evidence (conform/broker);
	// Caps is what it does, which decides the queue checks' n/a.
	Broker broker.Broker
	Caps   broker.Caps
	// Procs are the consumer's processes, when they are not the target's
	// own (the reference's workers); Ready waits until process i is back.
	Procs []faults.Proc
	Ready func(ctx context.Context, i int) error
	// Credits reads the consumer's credits when they are not where
	// ledger.credits reads (consumer.credits).
	Credits CreditReader
	// Points, when the consumer exposes them (the reference's workers),
	// are each process's failpoint after its credit is durable and before
	// its offset commit: Q-kill crashes a process there instead of racing
	// a SIGKILL against a commit that follows the credit within a
	// millisecond.
	Points []faults.Failpoint
}

// Words is how the run's broker says what its consumers acknowledged.
func (q *Queue) Words() broker.Words { return broker.WordsOf(q.Broker, q.Group) }

// credits reads the consumer's credits of one payment.
func (q *Queue) credits(ctx context.Context, e *Env, ref PaymentRef) ([]int64, error) {
	if q.Credits != nil {
		return q.Credits.Credits(ctx, ref)
	}
	return e.Credits.Credits(ctx, ref)
}

// ConsumerProcs are the processes that consume the topic.
func (q *Queue) ConsumerProcs(e *Env) []faults.Proc {
	if q.Procs != nil {
		return q.Procs
	}
	return e.Procs
}

// AwaitReady waits until consumer process i serves again.
func (q *Queue) AwaitReady(ctx context.Context, e *Env, i int) error {
	if q.Ready != nil {
		return q.Ready(ctx, i)
	}
	return e.WaitReady(ctx, i)
}

// RuleQueue is what the queue findings cite.
const RuleQueue = "SCENARIOS.md Q; one credit per payment record"

func NeedQueue(e *Env) string {
	switch {
	case e.Queue == nil:
		return "needs a consumer section: the topic and group of the service's Kafka consumer"
	case e.Credits == nil && e.Queue.Credits == nil:
		return "needs ledger.credits (or consumer.credits): without reading the service's credits no queue check can tell one credit from two"
	}
	return ""
}

func NeedQueueProcs(e *Env) string {
	if e.Queue != nil && len(e.Queue.ConsumerProcs(e)) == 0 {
		return "needs target.command: idemcheck must own the consumer's processes to kill them"
	}
	return ""
}

func NeedQueueReplicas(e *Env) string {
	if e.Queue != nil && len(e.Queue.ConsumerProcs(e)) < 2 {
		return "needs target.instances 2 or more: a second consumer must join the group and one leave it"
	}
	return ""
}

// RedeliveryWait bounds waiting for the group to pass a record after a
// kill: a SIGKILLed member holds its partitions until its session times
// out (45 s by Kafka's default), and only then are they redelivered.
func RedeliveryWait(e *Env) time.Duration { return max(e.Cfg.ConvergeD(), 60*time.Second) }

// Produce sends each record and waits for the broker's acknowledgement,
// which carries the offset it is stored at: the evidence it is in the log.
func (q *Queue) Produce(ctx context.Context, e *Env, recs ...*QRecord) error {
	return q.ProduceLog(ctx, e, true, recs...)
}

func (q *Queue) ProduceLog(ctx context.Context, e *Env, log bool, recs ...*QRecord) error {
	brs := make([]*broker.Record, len(recs))
	for i, r := range recs {
		brs[i] = &broker.Record{Key: []byte(r.key), Value: []byte(r.value), Lane: r.Partition, DedupID: r.dedup}
	}
	sent := time.Now()
	err := q.Broker.Produce(ctx, brs)
	acked := time.Now()
	if err != nil {
		var pe *broker.ProduceError
		if errors.As(err, &pe) {
			return fmt.Errorf("produce %s to %s: %w", recs[pe.I].event, q.Topic, pe.Err)
		}
		return fmt.Errorf("produce to %s: %w", q.Topic, err)
	}
	for i, r := range recs {
		r.Offset, r.id = brs[i].At.Offset, brs[i].At.ID
		r.sent, r.acked = sent, acked
	}
	if log {
		for _, r := range recs {
			e.Logf("  produced %s (key %s) at %s", r.event, r.key, r.Place().Long)
		}
	}
	return nil
}

// Committed is what the broker says the consumers acknowledged (Kafka:
// the group's committed offset per partition of the topic).
func (q *Queue) Committed(ctx context.Context) (broker.Acked, error) {
	return q.Broker.Acked(ctx)
}

// NotPassed lists the records the consumers have not acknowledged at at.
func NotPassed(recs []*QRecord, at broker.Acked) []*QRecord {
	var out []*QRecord
	for _, r := range recs {
		if at == nil || !at.Passed(r.Pos()) {
			out = append(out, r)
		}
	}
	return out
}

// WaitCommitted waits, bounded, until the group committed past every
// record. It returns those it never passed and the offsets last read.
func (q *Queue) WaitCommitted(ctx context.Context, recs []*QRecord, bound time.Duration) ([]*QRecord, broker.Acked) {
	deadline := time.Now().Add(bound)
	for {
		at, err := q.Committed(ctx)
		left := NotPassed(recs, at)
		if err == nil && len(left) == 0 {
			return nil, at
		}
		if time.Now().After(deadline) || SleepCtx(ctx, 50*time.Millisecond) != nil {
			return left, at
		}
	}
}

// RequireCommitted makes the check inconclusive unless the group moved
// past every record: a consumer that never read them proves nothing.
func (q *Queue) RequireCommitted(ctx context.Context, t *T, recs []*QRecord, bound time.Duration) bool {
	left, at := q.WaitCommitted(ctx, recs, bound)
	if len(left) == 0 {
		return true
	}
	w := q.Words()
	t.Inconclusive(fmt.Sprintf("%s never %s %v within %s (%s %s)", w.Named, w.Past, left, bound, w.Evidence, OffsetsWords(at)),
		"%s, and %s?", strings.TrimSuffix(q.ConsumeHint(), "?"), w.Hint)
	return false
}

// OffsetsWords is the broker's evidence as a finding quotes it.
func OffsetsWords(at broker.Acked) string {
	if at == nil {
		return "nothing"
	}
	return at.String()
}

// Members are the group's member ids, sorted.
func (q *Queue) Members(ctx context.Context) ([]string, error) {
	g, err := q.Broker.Group(ctx)
	if err != nil {
		return nil, err
	}
	return g.IDs(), g.Err
}

// WaitMembers waits until the group has n members none of which is in
// old, and returns them.
func (q *Queue) WaitMembers(ctx context.Context, n int, old []string, bound time.Duration) ([]string, bool) {
	deadline := time.Now().Add(bound)
	for {
		ms, err := q.Members(ctx)
		fresh := 0
		for _, m := range ms {
			if !Contains(old, m) {
				fresh++
			}
		}
		if err == nil && len(ms) == n && fresh > 0 {
			return ms, true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, 50*time.Millisecond) != nil {
			return ms, false
		}
	}
}

func Contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// RequireReady waits until the broker says the run's consumers are ready
// (broker.Readiness: on Kafka the group is Stable with one member per
// started instance): records produced while the group still forms are
// read by whichever member briefly owns their partition, which is not the
// steady state a check's fault is meant to hit.
func (q *Queue) RequireReady(ctx context.Context, e *Env, t *T) bool {
	return q.RequireReadyOf(ctx, e, t, len(q.ConsumerProcs(e)))
}

// RequireReadyOf is RequireReady with n of the consumer processes running
// (a check that stopped the others).
func (q *Queue) RequireReadyOf(ctx context.Context, e *Env, t *T, n int) bool {
	deadline := time.Now().Add(RedeliveryWait(e))
	var last broker.Readiness
	for {
		r, err := q.Broker.Ready(ctx, n)
		// A failed reading keeps what the last good one saw.
		if err == nil || last.Unmet == "" {
			last = r
		}
		if err == nil && r.Ready {
			return true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, 50*time.Millisecond) != nil {
			t.Inconclusive(fmt.Sprintf("%s within %s (%s)", last.Unmet, RedeliveryWait(e), last.Saw), "%s", q.consumesHint())
			return false
		}
	}
}

// consumesHint asks whether each instance reads the run's queue, by the
// variables that name it.
func (q *Queue) consumesHint() string {
	return strings.Replace(q.ConsumeHint(), "the service", "each instance", 1)
}

// ConsumeHint asks whether the service reads the run's queue, by the
// variables that name it (the group's, on a broker with one).
func (q *Queue) ConsumeHint() string {
	if q.Group == "" {
		return fmt.Sprintf("does the service consume $%s?", q.Cfg.Env.Topic)
	}
	return fmt.Sprintf("does the service consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
}

// FirstOf polls until the record is credited or the group committed past
// it, and says which had happened by then.
func (q *Queue) FirstOf(ctx context.Context, e *Env, r *QRecord) (credited, passed, ok bool) {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		credited, passed, ok = q.State(ctx, e, r)
		if ok && (credited || passed) {
			return credited, passed, true
		}
		if time.Now().After(deadline) || SleepCtx(ctx, PollEvery) != nil {
			return false, false, false
		}
	}
}

// State reads whether the record is credited and committed past.
func (q *Queue) State(ctx context.Context, e *Env, r *QRecord) (credited, passed, ok bool) {
	rows, err := q.credits(ctx, e, r.Ref)
	at, err2 := q.Committed(ctx)
	return len(rows) > 0, len(NotPassed([]*QRecord{r}, at)) == 0, err == nil && err2 == nil
}

// Landed is where a kill left record r: credited, as far as the service
// can still say (its credits may be served by the process just killed, so
// a failed read is no credit, which only makes the kill land earlier), and
// passed, from the broker's committed offsets. known is false when the
// broker could not be read: where the kill landed is then unknown.
func (q *Queue) Landed(ctx context.Context, e *Env, r *QRecord) (credited, passed, known bool) {
	rows, _ := q.credits(ctx, e, r.Ref)
	at, err := q.Committed(ctx)
	return len(rows) > 0, err == nil && len(NotPassed([]*QRecord{r}, at)) == 0, err == nil
}

// RestartAll starts every (killed) instance again.
func (q *Queue) RestartAll(ctx context.Context, e *Env, t *T) bool {
	for i, p := range q.ConsumerProcs(e) {
		if err := p.Restart(ctx); err != nil {
			t.Errorf("restart instance %d: %v", i, err)
			return false
		}
		if err := q.AwaitReady(ctx, e, i); err != nil {
			t.Errorf("instance %d did not come back after the kill: %v", i, err)
			return false
		}
	}
	return true
}

// WaitCrash waits, bounded by converge_within, until some process ended
// with the failpoint crash's own exit code, and returns its index (-1:
// none did). A crashed process cannot report its point fired.
func (q *Queue) WaitCrash(ctx context.Context, e *Env) int {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for {
		for i, p := range q.ConsumerProcs(e) {
			if ec, ok := p.(faults.ExitCoder); ok {
				if code, exited := ec.ExitCode(); exited && code == faults.CrashExitCode {
					return i
				}
			}
		}
		if time.Now().After(deadline) || SleepCtx(ctx, 5*time.Millisecond) != nil {
			return -1
		}
	}
}

// WaitCredited waits, bounded by converge_within, until some of recs has a credit.
func (q *Queue) WaitCredited(ctx context.Context, e *Env, recs []*QRecord) bool {
	deadline := time.Now().Add(e.Cfg.ConvergeD())
	for !anyCredited(ctx, e, recs) {
		if time.Now().After(deadline) || SleepCtx(ctx, 50*time.Millisecond) != nil {
			return false
		}
	}
	return true
}

// PollEvery is how often Q-kill looks for the credit and the commit: the
// kill must land between the two, and a consumer's commit typically
// trails its credit by a batch or a timer (hundreds of milliseconds).
const PollEvery = 5 * time.Millisecond
