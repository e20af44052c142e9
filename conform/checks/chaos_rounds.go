package checks

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// DefaultChaosWindow is the longest chaos run judged in one piece. A longer
// one (a soak) runs round after round of this length over the same
// deployment, each judged at its end and then forgotten, so what idemcheck
// holds does not grow with the run's length.
const DefaultChaosWindow = time.Minute

// RoundSeed is the seed round r of a long chaos run is planned from. Round
// 0 is the run's own seed, so a run's first window is the run of one
// window with that seed; the others are spread by splitmix64's step.
func RoundSeed(seed uint64, r int) uint64 {
	if r == 0 {
		return seed
	}
	z := seed + uint64(r)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return (z ^ z>>31) | 1
}

// Rounds splits d into windows of w: every one w long but the last, which
// takes the rest. A d of at most w is one round.
func Rounds(d, w time.Duration) []time.Duration {
	if w <= 0 || d <= w {
		return []time.Duration{d}
	}
	var out []time.Duration
	for left := d; left > 0; left -= w {
		out = append(out, min(w, left))
	}
	if n := len(out); n > 1 && out[n-1] < w/4 {
		// A sliver of a round draws too few intents for every fault to
		// fire: it joins the round before it.
		out[n-2] += out[n-1]
		out = out[:n-1]
	}
	return out
}

// wallBound is when a run in rounds begins no more rounds. A round runs
// every intent it planned (a window's worth, one every 250 ms) and is
// judged after, which takes longer than the window on a busy machine (a
// 60 s round of the paysvc fixture took 3.5 min on 2 shared cores): a 1 h
// soak must last about an hour, not three. A round's own bound is 3w+30 s
// (runChaos); under it, the fixed cost of settling and judging would cut a
// run of a few short windows to one.
func wallBound(d, w time.Duration) time.Duration {
	return max(d, 3*w+30*time.Second)
}

// runChaosRounds is the chaos check: one window as it always was, or for a
// d longer than the window (and no given schedule, which is one window by
// construction) rounds over the same deployment.
func runChaosRounds(ctx context.Context, e *scenario.Env, t *scenario.T, d time.Duration, onSchedule func([]string), cp ChaosPlan) {
	w := cp.Window
	if w == 0 {
		w = DefaultChaosWindow
	}
	rounds := Rounds(d, w)
	if len(rounds) == 1 || cp.Given != nil {
		runChaos(ctx, e, t, d, onSchedule, cp)
		return
	}
	files, err := openRoundFiles(cp.HistoryFile)
	if err != nil {
		t.Errorf("chaos history file: %v", err)
		return
	}
	defer files.close()
	seed := e.Seed
	// The rounds run one after another and plan from e.Seed (schedule,
	// bursts, queue chaos, meanings): each gets its own, restored after.
	defer func() { e.Seed = seed }()
	var sum roundSum
	var head []string
	start := time.Now()
	for i, rd := range rounds {
		if ctx.Err() != nil {
			break
		}
		if i > 0 && time.Since(start) >= wallBound(d, w) {
			break
		}
		label := fmt.Sprintf("round %d of %d (seed %d)", i+1, len(rounds), RoundSeed(seed, i))
		e.Seed = RoundSeed(seed, i)
		sub := t.Round(ctx)
		var lines []string
		tl := runChaos(ctx, e, sub, rd, func(l []string) { lines = l }, ChaosPlan{})
		if i == 0 {
			head = lines
		}
		files.schedule(label, lines)
		if err := files.history(sub.History); err != nil {
			t.Errorf("chaos history file: %v", err)
		}
		sum.add(sub, tl)
		if sub.Failed() {
			sum.failed = append(sum.failed, label)
		}
		kept := t.Absorb(ctx, label, sub)
		// The judge's peak is gone once the round is absorbed, but the
		// runtime keeps the pages it freed resident for minutes and returns
		// them slower than a soak's rounds raise the next peak: an hour's
		// RSS grew 4 MiB of idle heap. One forced collection a round (a few
		// ms, a round takes minutes) keeps the RSS what the run holds.
		debug.FreeOSMemory()
		e.Progressf("chaos %s: %s; evidence kept: %v", label, roundWords(tl), kept)
		if tl == nil {
			// It could not start (a fault not in the catalogue, the webhook
			// endpoint not registered): no later round would either.
			break
		}
	}
	if onSchedule != nil {
		onSchedule(append([]string{fmt.Sprintf("%d rounds of %s over one deployment, round r planned from its own seed (round 1 from the run's); below, round 1's schedule only%s",
			len(rounds), w, files.where())}, head...))
	}
	t.Coverage = sum.cov
	for _, l := range t.Coverage.Lines() {
		t.Counted("%s", l)
	}
	ran := fmt.Sprint(sum.rounds)
	if sum.rounds < len(rounds) && ctx.Err() == nil {
		ran = fmt.Sprintf("%d of the %d planned (%s had passed when the next would begin)", sum.rounds, len(rounds), wallBound(d, w))
	}
	t.Passf("%s rounds: %d intents (%d succeeded), %d faults injected and %d fired, every drawn fault at least once in every round; the checker decided %d partitions and %d history ops with no violation%s",
		ran, sum.ran, sum.ok, sum.planned, sum.fired, sum.partitions, sum.ops, files.where())
}

// roundSum adds up what clean rounds leave behind: counts only.
type roundSum struct {
	rounds, partitions, ops int
	ran, ok, planned, fired int64
	cov                     *scenario.Coverage
	failed                  []string
}

func (s *roundSum) add(sub *scenario.T, tl *tally) {
	s.rounds++
	s.partitions += sub.RoundPartitions()
	s.ops += len(sub.History)
	s.cov = s.cov.Sum(sub.Coverage)
	if tl == nil {
		return
	}
	s.ran += tl.ran.Load()
	s.ok += tl.ok.Load()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for name, n := range tl.planned {
		if name != NoFault {
			s.planned += int64(n)
			s.fired += int64(tl.fired[name])
		}
	}
}

func roundWords(tl *tally) string {
	if tl == nil {
		return "did not start"
	}
	// The judge's time, so a soak shows whether judging grows round
	// over round with what the run has accumulated.
	return fmt.Sprintf("%d intents (%d succeeded), judged in %s", tl.ran.Load(), tl.ok.Load(), tl.judged.Round(time.Millisecond))
}

// roundFiles are the history (HISTORY.md's JSONL, every round's judged ops
// appended, so `idemcheck check` re-judges the run offline) and the
// schedule of every round, beside it. With no path, nothing is written.
type roundFiles struct {
	hist, sched *os.File
}

func openRoundFiles(histPath string) (*roundFiles, error) {
	if histPath == "" {
		return &roundFiles{}, nil
	}
	h, err := os.Create(histPath)
	if err != nil {
		return nil, err
	}
	s, err := os.Create(schedulePath(histPath))
	if err != nil {
		h.Close()
		return nil, err
	}
	return &roundFiles{hist: h, sched: s}, nil
}

// schedulePath is where the rounds' schedules go beside the history file.
func schedulePath(histPath string) string {
	return strings.TrimSuffix(histPath, ".jsonl") + ".schedule.txt"
}

func (f *roundFiles) history(h history.History) error {
	if f.hist == nil {
		return nil
	}
	return history.WriteJSONL(f.hist, h)
}

func (f *roundFiles) schedule(label string, lines []string) {
	if f.sched == nil {
		return
	}
	fmt.Fprintf(f.sched, "%s\n", label)
	for _, l := range lines {
		fmt.Fprintf(f.sched, "  %s\n", l)
	}
}

func (f *roundFiles) where() string {
	if f.hist == nil {
		return "; history not written (give --html DIR or --json FILE to keep it)"
	}
	return fmt.Sprintf("; history in %s, every round's schedule in %s", f.hist.Name(), f.sched.Name())
}

func (f *roundFiles) close() {
	if f.hist != nil {
		f.hist.Close()
		f.sched.Close()
	}
}
