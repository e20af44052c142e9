package checks

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// runQPoison: a malformed record between good ones on one partition. The
// good ones must each be credited once; a consumer that stops the
// partition at the poison (and says nothing) loses every record behind it.
func runQPoison(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	if !q.RequireReady(ctx, e, t) {
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
			return fmt.Sprintf("it sits behind the poison record (partition 0 offset %d) and the group's offset stayed at %d for %s: the partition stopped at the poison", poison.Offset, offs[0], e.Cfg.ConvergeD())
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
	t.Passf("%d good records, the poison (%q at partition 0 offset %d), %d more; the group committed past all", len(before), q.Cfg.Poison, poison.Offset, len(after))
}

func recordNames(recs []*scenario.QRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}
