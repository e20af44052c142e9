package checks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// leave is one planned departure of a consumer from the group.
type leave struct {
	proc int
	// crash: SIGKILL; otherwise SIGTERM, then SIGKILL after
	// target.stop_grace, as an orchestrator stops a pod.
	crash bool
	// afterCredit aims the leave just after the wave's records are
	// credited (their offsets not committed yet); otherwise at frac of
	// the time a record takes to be seen, inside its processing.
	afterCredit bool
	frac        float64
}

func (l leave) String() string {
	how := "graceful stop (SIGTERM, SIGKILL after target.stop_grace)"
	if l.crash {
		how = "crash (SIGKILL)"
	}
	when := fmt.Sprintf("inside the wave's processing, at %.0f%% of the time a record takes to be seen", 100*l.frac)
	if l.afterCredit {
		when = "just after the wave's records are credited"
	}
	return fmt.Sprintf("instance %d leaves by %s %s", l.proc, how, when)
}

// lateTries is how many waves a leave aimed inside the processing gets
// when it keeps striking after the credits.
const lateTries = 3

// planLeaves draws the leaves from the seed: a graceful stop and a crash,
// each once inside a batch's processing and once after its credit, in a
// seeded order, instances taking turns.
func planLeaves(rng *rand.Rand, n int) []leave {
	var out []leave
	for _, crash := range []bool{false, true} {
		for _, after := range []bool{false, true} {
			out = append(out, leave{crash: crash, afterCredit: after, frac: 0.2 + 0.6*rng.Float64()})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	for i := range out {
		out[i].proc = []int{n - 1, 0}[i%2]
	}
	return out
}

// runQRebalance: a consumer leaves the group while it holds records it
// took and has not committed, and joins again (a deploy, a crash): the
// rebalance hands its partitions to a member that has not seen those
// records, and the broker redelivers every uncommitted offset. Before each
// leave a wave of one record per partition is produced, so the leaving
// member owns some; the group's assignment and committed offsets read
// just before the signal prove it held them. A leave that provably came
// after its records were committed is logged and not counted; each way
// of leaving (graceful, crash) must have landed at least once.
func runQRebalance(ctx context.Context, e *scenario.Env, t *scenario.T) {
	q := e.Queue
	n := len(q.ConsumerProcs(e))
	members, ok := q.WaitMembers(ctx, n, nil, scenario.RedeliveryWait(e))
	if !ok {
		t.Inconclusive(fmt.Sprintf("group %s has %d member(s), not one per instance (%d), within %s", q.Group, len(members), n, scenario.RedeliveryWait(e)),
			"does each instance consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
		return
	}
	plan := planLeaves(e.Rand("Q-rebalance"), n)
	e.Logf("  Q-rebalance plan:")
	for _, l := range plan {
		e.Logf("    %s", l)
	}
	recs := scenario.Wave(ctx, e, t)
	if recs == nil {
		return
	}
	produced := time.Now()
	if err := q.Produce(ctx, e, recs...); err != nil {
		t.Errorf("%v", err)
		return
	}
	seen, ok := q.FirstSeen(ctx, e, recs, produced)
	if !ok {
		t.Inconclusive(fmt.Sprintf("none of %d records was credited or committed within %s", len(recs), e.Cfg.ConvergeD()),
			"does the service consume $%s in the group named by $%s?", q.Cfg.Env.Topic, q.Cfg.Env.Group)
		return
	}
	e.Logf("  the first record of the first wave was seen %s after its produce", seen.Round(time.Millisecond))
	var steps []string
	landed := map[bool]int{}
	waves := 1
	for _, l := range plan {
		for try := 1; ; try++ {
			w, res, ok := leaveOnce(ctx, e, t, recs, l, seen)
			recs = append(recs, w...)
			waves++
			if !ok {
				return
			}
			steps = append(steps, res.word)
			if !res.outside {
				landed[l.crash]++
			}
			if !res.late(l) || try == lateTries {
				break
			}
			// Aimed inside the processing, it struck after every held
			// record's credit: a leave there proves nothing about the
			// processing's window, so strike the next wave earlier.
			l.frac /= 2
			e.Logf("  the leave came after its records' credits: again, at %.0f%% of the time a record takes to be seen", 100*l.frac)
		}
	}
	if !q.RequireCommitted(ctx, t, recs, scenario.RedeliveryWait(e)) {
		return
	}
	t.JudgeQueue(ctx, recs, nil)
	for _, crash := range []bool{false, true} {
		if landed[crash] == 0 {
			how := map[bool]string{false: "graceful stop", true: "crash"}[crash]
			t.Inconclusive(fmt.Sprintf("no %s landed while the leaving member held records it had not committed", how),
				"each leave came after the group had committed its records: %s", strings.Join(steps, "; "))
		}
	}
	t.Passf("%d records in %d waves; %s; the group committed past all", len(recs), waves, strings.Join(steps, "; "))
}
