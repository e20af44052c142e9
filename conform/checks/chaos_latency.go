package checks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// burstStream keeps the latency bursts' draws apart from the intents' and
// the consumer stream's, so adding them changed neither schedule.
const burstStream = 0x4c41_5400

// burstAim bounds how long a burst waits for traffic past its hold.
const burstAim = 10 * time.Second

// PlannedBurst is one latency burst of chaos: on link Link (an index in
// the run's dependency links), starting At after the traffic starts.
type PlannedBurst struct {
	N     int
	At    time.Duration
	Link  int
	Burst faults.Burst
}

// BurstPlan is chaos's latency bursts, a pure function of the seed: about
// one a second over d, each link taking its turn in a seeded order so every
// link gets one in a run long enough, each starting at a seeded moment of
// its second while the traffic runs. They widen the window between a read
// and a later write or delete inside one request or batch (an outbox
// relay's read-then-delete, a check-then-insert), which at a loopback's
// speed lasts microseconds and which no other fault stretches.
func BurstPlan(seed uint64, links int, d time.Duration) []PlannedBurst {
	if links == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, burstStream))
	order := r.Perm(links)
	n := max(2, int(d/time.Second))
	out := make([]PlannedBurst, n)
	for i := range out {
		slot := d / time.Duration(n)
		out[i] = PlannedBurst{N: i + 1, At: time.Duration(i)*slot + time.Duration(r.Int64N(int64(slot)/2+1)), Link: order[i%links], Burst: faults.DrawBurst(r)}
	}
	return out
}

// burstTally is what a run's bursts did: per link, the bursts that held
// back traffic (only those exercised anything), and in words each burst
// that held nothing or could not be put on its link.
type burstTally struct {
	held   map[string]int
	fired  []string
	idle   []string
	failed []string
	// skipped: a network fault was armed on the links (scenario's linkGate).
	skipped []string
}

// StartBursts runs the latency bursts on the run's dependency links beside
// the traffic (none when the target has no dependency links, or its config
// says toxiproxy.bursts: off): the plan over d, again every d while the
// traffic runs (a service's retries can keep it going past d), so every
// part of the traffic meets them. The returned wait, called once the
// traffic is over, ends them and says what they did. A burst that held
// nothing back (no request crossed it) proved nothing: it is named and
// not counted as exercised. A burst that could not be put on its link
// makes the run inconclusive: the plan printed promised it.
func StartBursts(ctx context.Context, e *scenario.Env, t *scenario.T, d time.Duration) func() *burstTally {
	bt := &burstTally{held: map[string]int{}}
	if e.Cfg.BurstsOff() {
		e.Logf("chaos latency bursts: off (toxiproxy.bursts: off)")
		return func() *burstTally { return bt }
	}
	links := e.BurstableLinks()
	plan := BurstPlan(e.Seed, len(links), d)
	if len(plan) == 0 {
		return func() *burstTally { return bt }
	}
	e.Logf("chaos latency bursts (on the dependency links' replies; the plan starts again every %s while the traffic runs):", d)
	for _, p := range plan {
		e.Logf("  burst %02d at %s on link %s: %s", p.N, p.At.Round(time.Millisecond), links[p.Link].Name, p.Burst)
	}
	bctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for round := 0; ; round++ {
			for _, p := range plan {
				if scenario.SleepCtx(bctx, time.Until(start.Add(time.Duration(round)*d+p.At))) != nil {
					return
				}
				word, n, err := burstOnce(bctx, e, links[p.Link], p, round)
				switch {
				case err != nil:
					bt.failed = append(bt.failed, word+": "+err.Error())
				case n < 0:
					bt.skipped = append(bt.skipped, word)
				case n > 0:
					bt.held[links[p.Link].Name]++
					bt.fired = append(bt.fired, fmt.Sprintf("%s held back %d", word, n))
				default:
					bt.idle = append(bt.idle, word)
				}
			}
		}
	}()
	return func() *burstTally {
		stop()
		<-done
		if len(bt.failed) > 0 {
			t.Inconclusive("every latency burst the plan drew was put on its link", "these were not: %s", strings.Join(bt.failed, "; "))
		}
		run := len(bt.fired) + len(bt.idle) + len(bt.failed)
		t.Counted("latency bursts: %d of %d run held back traffic (a plan of %d, run while the traffic ran; %d skipped while a network fault was armed on the links)", len(bt.fired), run, len(plan), len(bt.skipped))
		for _, w := range bt.fired {
			t.Counted("  %s", w)
		}
		for _, w := range bt.idle {
			t.Counted("  %s: held nothing back (no traffic crossed it), not counted as exercised", w)
		}
		return bt
	}
}

// burstOnce holds one burst for its time, and on until something crossed
// it (bounded by burstAim more): a link whose traffic comes in batches (a
// relay's pass, a consumer's batch) is idle between them, and a burst
// that no request crossed widened nothing. The traffic's end (ctx) ends
// it. It returns what it held back, -1 when it did not go on because a
// network fault was armed on the links.
func burstOnce(ctx context.Context, e *scenario.Env, l scenario.DepLink, p PlannedBurst, round int) (string, int64, error) {
	word := fmt.Sprintf("burst %02d on %s (%s)", p.N, l.Name, p.Burst)
	if round > 0 {
		word = fmt.Sprintf("burst %02d (repeat %d) on %s (%s)", p.N, round, l.Name, p.Burst)
	}
	yield, end, ok := e.BurstStart()
	if !ok {
		return word, -1, nil // skipped: a network fault was armed on the links
	}
	defer end()
	undo, count, err := l.Link.Burst(p.Burst)
	if err != nil {
		return word, 0, err
	}
	start := history.Now()
	// A network fault that arms meanwhile takes the links back at once.
	hold, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-yield:
			cancel()
		case <-hold.Done():
		}
	}()
	_ = scenario.SleepCtx(hold, p.Burst.Hold)
	for end := time.Now().Add(burstAim); count() == 0 && time.Now().Before(end) && hold.Err() == nil; {
		_ = scenario.SleepCtx(hold, 20*time.Millisecond)
	}
	n := count()
	if err := undo(); err != nil {
		return word, 0, fmt.Errorf("remove: %w", err)
	}
	if l.Blind != "" && n == 0 {
		return word + " (" + l.Blind + ")", 0, nil
	}
	e.NoteFault(fmt.Sprintf("latency burst on link %s: %s (%d held back)", l.Name, p.Burst, n), start, history.Now())
	return word, n, nil
}
