package checker

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

const defaultTimeout = 10 * time.Second

// Check decides whether one sequential, exactly-once payment service could
// have produced h, partition by partition (per intent, per merchant stretch),
// then checks the invariants that only hold at quiescence. Violations come
// out in a deterministic order.
func Check(h history.History, opts CheckOptions) *Result {
	start := time.Now()
	res := check(h, opts)
	res.Elapsed = time.Since(start)
	return res
}

func check(h history.History, opts CheckOptions) *Result {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	return combine(opts, []*piece{checkPiece(h, opts, nil)})
}

// checkPiece checks h, the whole file or a piece of it that shares no
// intent, payment, merchant, charge, recipient, item or message with the
// rest (stream.go), and keeps what it found unmerged, each finding placed
// where the whole file's check would have found it, for combine. whole is
// what the whole file records, nil when h is the whole file.
func checkPiece(h history.History, opts CheckOptions, whole *recorded) *piece {
	h, invalid := history.WellFormed(h)
	pc := &piece{ops: len(h), invalid: invalid}
	l := link(h)
	facts := gatherFacts(h, l, whole)

	// The quiescence checks need no search: run them beside the partitions.
	var global []found
	globalDone := make(chan struct{})
	go func() {
		defer close(globalDone)
		global = placed(stageCross, crossIntentAnswers(h, l))
		global = append(global, placed(stageQuiescence, quiescence(h, l, facts))...)
		global = append(global, stacked(h, l)...)
		global = append(global, placed(stageSink, sinkDivergence(h, facts))...)
		global = append(global, refundViolations(h, l, facts.hasCharges)...)
	}()
	var merchants []*partition
	merchantsDone := make(chan struct{})
	go func() {
		defer close(merchantsDone)
		merchants = merchantPartitions(h, l, opts.InitialBalances, facts)
	}()
	parts := intentPartitions(h, l, facts.hasCharges)
	<-merchantsDone
	parts = append(parts, merchants...)
	pc.partitions = len(parts)
	count := map[string]int{}
	for _, p := range merchants {
		count[p.Merchant]++
	}
	// The names are copies: they point into the piece's ops, which a
	// streamed check drops once the piece is checked, while the counts
	// outlive them (and storing to a string key replaces the key).
	pc.stretches = make(map[string]int, len(count))
	for m, n := range count {
		pc.stretches[strings.Clone(m)] = n
	}

	outcomes := make([]partOutcome, len(parts))
	var wg sync.WaitGroup
	next := make(chan []int, opts.Workers)
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range next {
				if len(batch) > 1 && checkBatch(parts, batch, opts.Timeout) {
					continue // all Ok: the zero partOutcome
				}
				for _, i := range batch {
					outcomes[i] = checkPartition(h, l, parts[i], opts.Timeout)
				}
			}
		}()
	}
	for _, b := range batches(parts) {
		next <- b
	}
	close(next)
	wg.Wait()

	for i, o := range outcomes {
		p := parts[i]
		if o.result == porcupine.Unknown {
			pc.unknown = append(pc.unknown, placedUnknown{part: p, u: UnknownPartition{Name: p.Name, Ops: len(p.members)}})
		}
		if o.result == porcupine.Illegal {
			pc.failed = append(pc.failed, p)
		}
		for _, v := range o.violations {
			pc.found = append(pc.found, found{stage: stagePartition, key: p.order(), part: p, v: v})
		}
	}
	<-globalDone
	pc.found = append(pc.found, global...)
	pc.shapes = judgeShapes(h) // versioned writes and durable conditions (shape.go), apart from the merge
	pc.partitions += pc.shapes.partitions
	// Keep only the partitions a finding may be about, for the pictures:
	// combine picks among them by the merged violations.
	vs := make([]Violation, 0, len(pc.found)+len(pc.shapes.violations))
	for _, f := range pc.found {
		vs = append(vs, f.v)
	}
	pc.kept = aboutViolations(parts, append(vs, pc.shapes.violations...))
	for _, p := range pc.kept {
		if p.Merchant != "" && p.ops == nil {
			buildStretch(h, p, facts.dupCredit) // a picture may show it
		}
	}
	for _, p := range append(pc.kept, pc.failed...) {
		p.h = h
	}
	return pc
}

// aboutViolations keeps the partitions a violation may be about (pictured
// by WriteHTML), so a clean million-op result does not hold every partition.
func aboutViolations(parts []*partition, vs []Violation) []*partition {
	if len(vs) == 0 {
		return nil
	}
	names, places := map[string]bool{}, map[string]bool{}
	for _, v := range vs {
		names[v.Partition] = true
		places["i"+v.Intent] = true
		places["m"+v.Merchant] = true
	}
	var kept []*partition
	for _, p := range parts {
		if names[p.Name] || (p.Intent != "" && places["i"+p.Intent]) || (p.Merchant != "" && places["m"+p.Merchant]) {
			kept = append(kept, p)
		}
	}
	return kept
}

// mergeViolations joins violations of one kind at one place (an intent seen
// wrong by both its partition and the cross-intent pass) into one report.
func mergeViolations(vs []Violation) []Violation {
	type key struct{ kind, intent, merchant string }
	at := map[key]int{}
	var out []Violation
	for _, v := range vs {
		k := key{v.Kind, v.Intent, v.Merchant}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, v)
			continue
		}
		m := &out[i]
		if m.Message != v.Message {
			m.Message += "; " + v.Message
		}
		if m.Partition == "" {
			m.Partition = v.Partition
		}
		type id struct {
			p, op string
			call  int64
		}
		seen := map[id]bool{}
		for _, o := range m.Ops {
			seen[id{o.Process, o.Op, o.Call}] = true
		}
		for _, o := range v.Ops {
			if !seen[id{o.Process, o.Op, o.Call}] {
				m.Ops = append(m.Ops, o)
			}
		}
		sort.SliceStable(m.Ops, func(a, b int) bool { return m.Ops[a].Call < m.Ops[b].Call })
	}
	return out
}

// batchSize is how many partitions go to porcupine in one call: one call
// per tiny partition costs more in set-up than in search.
const batchSize = 256

// batches groups the partitions porcupine must see, by model. A merchant
// stretch without a balance read needs no search.
func batches(parts []*partition) [][]int {
	var out [][]int
	var intents, merchants []int
	flush := func(b *[]int, force bool) {
		if len(*b) > 0 && (force || len(*b) >= batchSize) {
			out = append(out, *b)
			*b = nil
		}
	}
	for i, p := range parts {
		if p.Merchant != "" {
			if p.hasRead {
				merchants = append(merchants, i)
				flush(&merchants, false)
			}
			continue
		}
		intents = append(intents, i)
		flush(&intents, false)
	}
	flush(&intents, true)
	flush(&merchants, true)
	return out
}

// checkBatch reports whether every partition of the batch is linearizable,
// in one porcupine call. On any other answer each partition is checked on its
// own, to tell which one failed and how.
func checkBatch(parts []*partition, batch []int, timeout time.Duration) bool {
	n := 0
	for _, i := range batch {
		n += len(parts[i].ops)
	}
	all := make([]porcupine.Operation, 0, n)
	sizes := make([]int, len(batch))
	for k, i := range batch {
		all = append(all, parts[i].ops...)
		sizes[k] = len(parts[i].ops)
	}
	model := *parts[batch[0]].model
	model.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		out := make([][]porcupine.Operation, 0, len(sizes))
		for _, n := range sizes {
			out = append(out, ops[:n:n])
			ops = ops[n:]
		}
		return out
	}
	// A batch of small partitions takes milliseconds; one that takes long
	// holds a hard partition, which then gets its full budget on its own.
	if timeout > time.Second {
		timeout = time.Second
	}
	return porcupine.CheckOperationsTimeout(model, all, timeout) == porcupine.Ok
}

type partOutcome struct {
	result     porcupine.CheckResult
	violations []Violation
}

func checkPartition(h history.History, l *links, p *partition, timeout time.Duration) partOutcome {
	if p.Merchant != "" && !p.hasRead {
		// Credits alone cannot disagree with a balance.
		return partOutcome{result: porcupine.Ok}
	}
	r := porcupine.CheckOperationsTimeout(*p.model, p.ops, timeout)
	out := partOutcome{result: r}
	if r == porcupine.Ok {
		return out
	}
	if p.Intent != "" {
		out.violations = classifyIntent(h, p, r, timeout)
	} else {
		out.violations = classifyMerchant(h, p, r, timeout)
		if r == porcupine.Illegal && out.violations == nil {
			// Legal once repeated credits are dropped: the double-credit
			// found by counting explains it, nothing else to report.
			out.result = porcupine.Ok
		}
	}
	for i := range out.violations {
		out.violations[i].Partition = p.Name
	}
	return out
}

func sortViolations(vs []Violation) {
	rank := map[string]int{}
	for i, k := range Kinds {
		rank[k] = i
	}
	first := func(v Violation) int64 {
		if len(v.Ops) == 0 {
			return 0
		}
		return v.Ops[0].Call
	}
	sort.SliceStable(vs, func(a, b int) bool {
		x, y := vs[a], vs[b]
		if x.Kind != y.Kind {
			return rank[x.Kind] < rank[y.Kind]
		}
		if x.Intent != y.Intent {
			return x.Intent < y.Intent
		}
		if x.Merchant != y.Merchant {
			return x.Merchant < y.Merchant
		}
		return first(x) < first(y)
	})
}

// opsAt returns the history ops at idx, sorted by call.
func opsAt(h history.History, idx []int) []history.Op {
	s := append([]int(nil), idx...)
	sort.SliceStable(s, func(a, b int) bool { return h[s[a]].Call < h[s[b]].Call })
	ops := make([]history.Op, len(s))
	for i, j := range s {
		ops[i] = h[j]
	}
	return ops
}
