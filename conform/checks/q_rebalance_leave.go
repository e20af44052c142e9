package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// left is what one leave struck: in words (with "outside the window"
// when the leaving member held nothing uncommitted), and how many records
// it held uncommitted and how many of those were credited.
type left struct {
	word               string
	outside            bool
	held, heldCredited int
}

// late says a leave aimed inside the processing came after it: every
// record it held was already credited, so it struck as an after-credit
// leave does (a loaded machine processes at another pace than the first
// record's).
func (r left) late(l leave) bool {
	return !l.afterCredit && !r.outside && r.held > 0 && r.heldCredited == r.held
}

// leaveOnce waits until the group is quiet (n members, every record so
// far committed), produces a wave, aims the leave l at it, brings the
// instance back and waits until the group has n members again without
// the one that left. It returns the wave's records, what the leave struck,
// and false when the check ended (said).
func leaveOnce(ctx context.Context, e *scenario.Env, t *scenario.T, recs []*scenario.QRecord, l leave, seen time.Duration) ([]*scenario.QRecord, left, bool) {
	q := e.Queue
	n := len(q.ConsumerProcs(e))
	if !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
		return nil, left{}, false
	}
	members, ok := q.WaitGone(ctx, n, nil, scenario.RedeliveryWait(e))
	if !ok {
		t.Inconclusive(fmt.Sprintf("group %s did not have %d members within %s (members %v)", q.Group, n, scenario.RedeliveryWait(e), members),
			"does each instance rejoin the group named by $%s?", q.Cfg.Env.Group)
		return nil, left{}, false
	}
	assigned, err := q.Assignment(ctx)
	if err != nil {
		t.Errorf("read group %s's assignment: %v", q.Group, err)
		return nil, left{}, false
	}
	w := scenario.Wave(ctx, e, t)
	if w == nil {
		return nil, left{}, false
	}
	undo := holdCommits(e)
	defer undo()
	if err := q.ProduceLog(ctx, e, false, w...); err != nil {
		t.Errorf("%v", err)
		return nil, left{}, false
	}
	if l.afterCredit {
		q.AllSeen(ctx, e, w) // bounded; where it stood is read below
	} else {
		_ = scenario.SleepCtx(ctx, time.Duration(l.frac*float64(seen)))
	}
	credited, at, readOK := q.Progress(ctx, e, w)
	start := history.Now()
	how, ok := leaveAndReturn(ctx, e, t, l)
	if !ok {
		return w, left{}, false
	}
	now, joined := q.WaitMembers(ctx, n, members, scenario.RedeliveryWait(e))
	e.NoteFault(fmt.Sprintf("instance %d leaves group %s by %s and rejoins", l.proc, q.Group, how), start, history.Now())
	if !joined {
		t.Inconclusive(fmt.Sprintf("after instance %d left and restarted, group %s did not get back to %d members within %s (members %v)", l.proc, q.Group, n, scenario.RedeliveryWait(e), now),
			"does the restarted instance join the group named by $%s?", q.Cfg.Env.Group)
		return w, left{}, false
	}
	var gone []string
	for _, m := range members {
		if !slices.Contains(now, m) {
			gone = append(gone, m)
		}
	}
	res := left{word: fmt.Sprintf("instance %d left by %s", l.proc, how), outside: true}
	switch {
	case !readOK:
		res.word += ": outside the window (its records' credits and commits could not be read just before)"
	case len(gone) != 1:
		res.word += fmt.Sprintf(": outside the window (%d members replaced, not one: which partitions it held is unknown)", len(gone))
	default:
		held := scenario.Held(w, assigned[gone[0]], at)
		if len(held) == 0 {
			res.word += fmt.Sprintf(": outside the window (the group had committed past its records on partitions %v)", assigned[gone[0]])
			break
		}
		res.outside, res.held = false, len(held)
		for _, r := range held {
			if credited[r] {
				res.heldCredited++
			}
		}
		res.word += fmt.Sprintf(" holding %d record(s) not committed (%s), %d of them credited", len(held), recordWords(held), res.heldCredited)
	}
	e.Logf("  %s", res.word)
	return w, res, true
}

// leaveAndReturn stops instance l.proc as l says, starts it again and
// waits until it serves; it returns how it stopped.
func leaveAndReturn(ctx context.Context, e *scenario.Env, t *scenario.T, l leave) (string, bool) {
	q := e.Queue
	p := q.ConsumerProcs(e)[l.proc]
	how := "SIGKILL"
	switch s, ok := p.(scenario.Stopper); {
	case l.crash:
		if err := p.Kill(); err != nil {
			t.Errorf("kill instance %d: %v", l.proc, err)
			return "", false
		}
	case ok:
		graceful, err := s.Stop()
		if err != nil {
			t.Errorf("stop instance %d: %v", l.proc, err)
			return "", false
		}
		how = "SIGTERM (it exited within target.stop_grace)"
		if !graceful {
			how = "SIGTERM, then SIGKILL when target.stop_grace ran out"
		}
	default:
		how = "a restart (its own graceful stop)"
	}
	if err := p.Restart(ctx); err != nil {
		t.Errorf("restart instance %d: %v", l.proc, err)
		return "", false
	}
	if err := q.AwaitReady(ctx, e, l.proc); err != nil {
		t.Errorf("instance %d did not come back: %v", l.proc, err)
		return "", false
	}
	return how, true
}

// commitHold is how long a consumer that exposes the point before its
// offset commit (the reference's workers) is held there during a wave.
const commitHold = time.Second

// holdCommits arms, on every consumer that exposes the point between its
// durable credit and its offset commit, a sleep there for the wave: such
// a consumer commits within a millisecond of its credit, and a leave could
// never find it holding a record it had not committed. It returns the
// undo; a process restarted meanwhile has its point disarmed already.
func holdCommits(e *scenario.Env) func() {
	q := e.Queue
	var armed []faults.Failpoint
	for i, p := range q.ConsumerProcs(e) {
		if i >= len(q.Points) {
			break
		}
		fp := q.Points[i]
		if a, ok := p.(interface{ Admin() string }); ok {
			fp = faults.FailpointAt(a.Admin(), fp.Name) // a restart moves the admin endpoint
		}
		if err := fp.Arm(fmt.Sprintf("sleep(%s)", commitHold)); err != nil {
			e.Logf("  arm consumer %d's point %s: %v", i, fp.Name, err)
			continue
		}
		armed = append(armed, fp)
	}
	return func() {
		for _, fp := range armed {
			_ = fp.Undo()
		}
	}
}

func recordWords(recs []*scenario.QRecord) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return strings.Join(out, " ")
}
