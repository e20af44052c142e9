package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runQPoison: a malformed record between good ones on one partition. The
// good ones must each be credited once; a consumer that stops the
// partition at the poison (and says nothing) loses every record behind it.
// A broker without partitions but with a dead-letter queue runs
// runQPoisonDL instead (q_poison_dl.go).
func runQPoison(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	if !q.RequireReady(ctx, e, t) {
		return
	}
	if q.Caps&broker.Partitions == 0 {
		alone, restore, ok := oneConsumer(ctx, e, t)
		defer restore()
		if !ok {
			return
		}
		runQPoisonDL(ctx, e, t)
		if alone != "" && t.Why != "" {
			t.Why += "; " + alone
		}
		return
	}
	var before, after []*scenario.QRecord
	for i := 0; i < 5; i++ {
		r := scenario.NewQRecord(ctx, e, t)
		if r == nil {
			return
		}
		if i < 2 {
			before = append(before, r)
		} else {
			after = append(after, r)
		}
	}
	poison := scenario.PoisonRecord(e, 0)
	recs := append(append(append([]*scenario.QRecord{}, before...), poison), after...)
	for _, r := range recs {
		r.Partition = 0
	}
	if err := q.Produce(ctx, e, recs...); err != nil {
		t.Errorf("%v", err)
		return
	}
	left, at := q.WaitCommitted(ctx, recs, e.Cfg.ConvergeD())
	if len(left) > 0 && !q.WaitCredited(ctx, e, before) {
		// Nothing before the poison was credited either: the consumer is
		// not consuming, which says nothing about the poison.
		t.Inconclusive(fmt.Sprintf("none of the %d records before the poison was credited within %s (group %s committed %s)", len(before), e.Cfg.ConvergeD(), q.Group, scenario.OffsetsWords(at)),
			"does the service consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
		return
	}
	// Q-poison needs broker.Partitions: the evidence is per partition.
	offs, _ := at.(broker.Offsets)
	stuck := func(r *scenario.QRecord) string {
		if r.Offset > poison.Offset && scenario.Contains(recordNames(left), r.String()) {
			return poisonStuck(poison.Place(), offs[0], e.Cfg.ConvergeD())
		}
		return ""
	}
	t.JudgeQueue(ctx, recs, stuck)
	if len(left) > 0 && !t.Failed() {
		// Every record was credited, yet the offsets never moved past them:
		// redelivery and lag are unjudged.
		t.Inconclusive(fmt.Sprintf("group %s never committed past %v within %s (committed %s)", q.Group, left, e.Cfg.ConvergeD(), scenario.OffsetsWords(at)), "")
		return
	}
	t.Passf("%s", poisonPassed(len(before), q.Cfg.Poison, poison.Place(), len(after)))
}

// poisonStuck is why a record behind the poison was never credited: the
// group's committed offset on the poison's partition stayed at committed.
func poisonStuck(poison broker.Place, committed int64, d time.Duration) string {
	return fmt.Sprintf("it sits behind the poison record (%s) and the group's offset stayed at %d for %s: the partition stopped at the poison", poison.Long, committed, d)
}

// poisonPassed is Q-poison's pass line.
func poisonPassed(before int, poison string, at broker.Place, after int) string {
	return fmt.Sprintf("%d good records, the poison (%q at %s), %d more; the group committed past all", before, poison, at.Long, after)
}

func recordNames(recs []*scenario.QRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}
