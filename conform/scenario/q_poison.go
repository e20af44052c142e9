package scenario

import (
	"context"
	"fmt"
)

// runQPoison: a malformed record between good ones on one partition. The
// good ones must each be credited once; a consumer that stops the
// partition at the poison (and says nothing) loses every record behind it.
func runQPoison(ctx context.Context, e *Env, t *T) {
	q := e.Queue
	if !q.requireFormed(ctx, e, t) {
		return
	}
	var before, after []*qRecord
	for i := 0; i < 5; i++ {
		r := newQRecord(ctx, e, t)
		if r == nil {
			return
		}
		if i < 2 {
			before = append(before, r)
		} else {
			after = append(after, r)
		}
	}
	poison := poisonRecord(e, 0)
	recs := append(append(append([]*qRecord{}, before...), poison), after...)
	for _, r := range recs {
		r.partition = 0
	}
	if err := q.produce(ctx, e, recs...); err != nil {
		t.Errorf("%v", err)
		return
	}
	left, at := q.waitCommitted(ctx, recs, e.Cfg.ConvergeD())
	if len(left) > 0 && !q.waitCredited(ctx, e, before) {
		// Nothing before the poison was credited either: the consumer is
		// not consuming, which says nothing about the poison.
		t.Inconclusive(fmt.Sprintf("none of the %d records before the poison was credited within %s (group %s committed %s)", len(before), e.Cfg.ConvergeD(), q.Group, offsetsWords(at)),
			"does the service consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
		return
	}
	stuck := func(r *qRecord) string {
		if r.offset > poison.offset && contains(recordNames(left), r.String()) {
			return fmt.Sprintf("it sits behind the poison record (partition 0 offset %d) and the group's offset stayed at %d for %s: the partition stopped at the poison", poison.offset, at[0], e.Cfg.ConvergeD())
		}
		return ""
	}
	t.judgeQueue(ctx, recs, stuck)
	if len(left) > 0 && !t.Failed() {
		// Every record was credited, yet the offsets never moved past them:
		// redelivery and lag are unjudged.
		t.Inconclusive(fmt.Sprintf("group %s never committed past %v within %s (committed %s)", q.Group, left, e.Cfg.ConvergeD(), offsetsWords(at)), "")
		return
	}
	t.Passf("%d good records, the poison (%q at partition 0 offset %d), %d more; the group committed past all", len(before), q.Cfg.Poison, poison.offset, len(after))
}

func recordNames(recs []*qRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}
