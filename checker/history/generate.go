package history

import (
	"math/rand"
	"strconv"
)

// GenOptions shape a generated legal history.
type GenOptions struct {
	Seed        int64
	Ops         int     // about how many ops (default 10000)
	Clients     int     // concurrent clients (default 8)
	UnknownRate float64 // share of client calls whose answer is lost (default 0.01)
	// PerMerchant is how many intents credit one merchant (default 100).
	PerMerchant int
}

// How often the kinds beyond the payment's own five ops come up, in intents.
// They stay rare so a generated history costs about what it did before they
// were added (a 1M-op history is the benchmark's), yet every few hundred ops
// hold each of them, so a 500-op history already has every op kind.
const (
	genRefundEvery  = 25  // a refund, full or partial, of that intent's charge
	genLateDayEvery = 50  // a credit whose ledger day is not its call's date
	genShapeEvery   = 100 // an item's versioned writes, and a message's moves
)

// Generate builds a legal history of a correct, exactly-once payment service
// under concurrent clients, for tests and benchmarks: per intent a create, a
// concurrent duplicate create from another process (answered in_progress),
// the PSP's charge, the ledger's credit and the push, about 5 ops (and the
// app's retry or resolve when its first answer was lost), plus balance reads.
// Now and then a payment is refunded, in full or in parts (one part logged
// twice, as a PSP replay is); every (merchant, day) the ledger credited gets
// a sink row with its total; and the shape kinds come in too, an item's
// versioned writes read back at quiescence and a message's moves and deletes
// located at quiescence (generate_shapes.go). Every op gets a linearization
// point inside its interval and answers computed from those points, so the
// history is linearizable by construction. It returns the merchants' initial
// balances too.
func Generate(o GenOptions) (History, map[string]int64) {
	g := newGenerator(o)
	h := make(History, 0, g.o.Ops+g.o.Ops/20)
	g.run(func(part History) { h = append(h, part...) })
	g.rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] }) // line order carries no meaning
	return h, g.initial
}

// generator is Generate's state between intents: what the balance reads and
// the sink rows still need, never the ops already handed on.
type generator struct {
	o       GenOptions
	rng     *rand.Rand
	sl      slab
	shapes  *genShapes
	names   []string
	initial map[string]int64
	start   []int64 // each client's next call
	procs   []genProcs
	h       History // made, not handed on yet: the oldest may wait for a read's answer
	reads   genReads
	days    []genDays // per merchant, for the sink rows
}

func newGenerator(o GenOptions) *generator {
	if o.Ops <= 0 {
		o.Ops = 10000
	}
	if o.Clients <= 0 {
		o.Clients = 8
	}
	if o.UnknownRate == 0 {
		o.UnknownRate = 0.01
	}
	if o.PerMerchant <= 0 {
		o.PerMerchant = 100
	}
	g := &generator{o: o, rng: rand.New(rand.NewSource(o.Seed)), initial: map[string]int64{}}
	merchants := o.Ops/5/o.PerMerchant + 1
	g.names = make([]string, merchants)
	base := make([]int64, merchants)
	for m := range g.names {
		g.names[m] = "m" + strconv.Itoa(m)
		base[m] = g.rng.Int63n(100000)
		g.initial[g.names[m]] = base[m]
	}
	g.reads = genReads{base: base}
	g.days = make([]genDays, merchants)
	g.start = make([]int64, o.Clients)
	g.procs = make([]genProcs, o.Clients)
	for c := range g.start {
		g.start[c] = int64(c) * 37 // interleave the clients
		g.procs[c] = newGenProcs(c)
	}
	// The ops' small pointed-to values come from blocks, not one allocation
	// each: a 1M-op history is otherwise millions of them for the collector.
	g.shapes = &genShapes{rng: g.rng, sl: &g.sl, unknown: g.unknown}
	return g
}

func (g *generator) unknown() bool { return g.rng.Float64() < g.o.UnknownRate }

// genSettleEvery is how many intents go by between two attempts to answer
// reads and hand ops on: often enough that little waits, rarely enough that
// the scans cost nothing.
const genSettleEvery = 64

// run makes the history in generation order and hands it to emit a part at
// a time; emit must not keep the slice it is given. The sink rows come last.
func (g *generator) run(emit func(History)) {
	intents := g.o.Ops / 5
	for k := 0; k < intents; k++ {
		g.intent(k)
		if k%genSettleEvery == genSettleEvery-1 {
			g.settle(emit, false)
		}
	}
	g.settle(emit, true)
	var end int64
	for _, s := range g.start {
		end = max(end, s)
	}
	g.h = appendSinks(g.h[:0], &g.sl, g.rng, g.names, g.days, end)
	emit(g.h)
}

// intent appends intent k's ops to g.h.
func (g *generator) intent(k int) {
	rng, sl, unknown := g.rng, &g.sl, g.unknown
	h := g.h
	c := k % g.o.Clients
	s := g.start[c]
	g.start[c] += 100 + rng.Int63n(20)
	ks := strconv.Itoa(k)
	intent := "payments:u" + ks + ":K" + strconv.Itoa(rng.Intn(3))
	pid := "pay_" + ks
	mi := k % len(g.names)
	merchant := g.names[mi]
	amount := 100 + rng.Int63n(10000)
	fp := "fp" + ks
	in := Input{Fingerprint: fp, Amount: sl.int64(amount), Currency: "USD"}
	p := &g.procs[c]
	// create claims at s+1, the PSP charges at s+3, the create answers at s+20.
	first := Op{Process: p.phone, Op: OpCreate, Call: s, Intent: intent, Input: in}
	if !unknown() {
		first.Return, first.Output = sl.int64(s+20), sl.output(&Output{Outcome: OutcomeSucceeded, PaymentID: pid})
	}
	dup := Op{Process: p.retry, Op: OpCreate, Call: s + 2 + rng.Int63n(5), Intent: intent, Input: in}
	if !unknown() {
		dup.Return, dup.Output = sl.int64(dup.Call+8), sl.output(&Output{Outcome: OutcomeInProgress, PaymentID: pid})
	}
	charge := Op{Process: p.psp, Op: OpCharge, Call: s + 2, Return: sl.int64(s + 4), PaymentID: pid,
		Input:  Input{PSPKey: pid + ":charge", Amount: sl.int64(amount), Metadata: map[string]string{"payment_id": pid}},
		Output: sl.output(&Output{ChargeID: "ch_" + pid})}
	cr := Op{Process: p.ledger, Op: OpCredit, Call: s + 30, Return: sl.int64(s + 30 + rng.Int63n(40)), PaymentID: pid,
		Input: Input{Merchant: merchant, Amount: sl.int64(amount), EventID: pid + ":SUCCEEDED"}}
	if k%genLateDayEvery == genLateDayEvery/2 {
		// The ledger books the payment on the next day (settled after
		// midnight): the sink must follow input.day, not the call's date.
		cr.Input.Day = genNextDay
	}
	g.reads.credit(mi, cr.Call+(*cr.Return-cr.Call)/2, amount)
	g.days[mi].add(amount, cr.Input.Day != "")
	push := Op{Process: p.push, Op: OpNotify, Call: s + 75, Return: sl.int64(s + 80), PaymentID: pid,
		Input: Input{ReplaceID: pid, Recipient: "user-" + ks}, Output: sl.output(&Output{Shown: sl.int(1), Alert: sl.bool(true)})}
	h = append(h, first, dup, charge, cr, push)
	if first.Return == nil {
		// The app whose answer was lost asks again under the same key,
		// by a retried create or a resolve, and hears the outcome: a
		// correct service converges (converge.go).
		again := Op{Process: p.phone, Op: OpCreate, Call: s + 40, Return: sl.int64(s + 48), Intent: intent, Input: in,
			Output: sl.output(&Output{Outcome: OutcomeSucceeded, PaymentID: pid})}
		if k%2 == 1 {
			again.Op, again.Input = OpResolve, Input{}
		}
		h = append(h, again)
	}
	if k%genRefundEvery == genRefundEvery/2 {
		h = appendRefunds(h, sl, p.psp, pid, amount, s, int64(k/genRefundEvery)%3)
	}
	switch k % genShapeEvery {
	case 0:
		h = g.shapes.item(h, p, ks, s, (k/genShapeEvery)%2 == 1)
	case genShapeEvery / 2:
		// The first message is a deleted one, so the smallest
		// histories hold a delete too.
		h = g.shapes.message(h, p, ks, int64(k), s, int64(k/genShapeEvery+1)%3)
	}
	if k%50 == 0 {
		b := Op{Process: p.reader, Op: OpBalance, Call: s + 25 + rng.Int63n(40), Input: Input{Merchant: merchant}}
		b.Return = sl.int64(b.Call + rng.Int63n(30))
		g.reads.read(len(h), mi, b.Call+(*b.Return-b.Call)/2)
		h = append(h, b)
	}
	g.h = h
}

// genDays totals one merchant's credits per ledger day, for its sink rows.
type genDays struct {
	first, next     int64
	onFirst, onNext bool
}

func (d *genDays) add(amount int64, late bool) {
	if late {
		d.next, d.onNext = d.next+amount, true
	} else {
		d.first, d.onFirst = d.first+amount, true
	}
}

// The generator's times are nanoseconds from the epoch, all within its first
// day: a credit without input.day belongs to genFirstDay (creditDay).
const (
	genFirstDay = "1970-01-01"
	genNextDay  = "1970-01-02"
)

// appendRefunds refunds one payment's charge after it was made: in full, or
// in two parts under two keys (the first logged twice, a PSP replay, which is
// one refund), or in one part. The parts stay within the charge.
func appendRefunds(h History, sl *slab, proc, pid string, amount, s int64, variant int64) History {
	refund := func(at int64, n string, part int64) Op {
		return Op{Process: proc, Op: OpRefund, Call: at, Return: sl.int64(at + 1), PaymentID: pid,
			Input:  Input{PSPKey: pid + ":refund:" + n, Amount: sl.int64(part), ChargeID: "ch_" + pid, Request: pid + ":r" + n},
			Output: sl.output(&Output{RefundID: "re_" + pid + "_" + n})}
	}
	switch variant {
	case 0:
		return append(h, refund(s+82, "1", amount))
	case 1:
		first := refund(s+82, "1", amount/3)
		replay := first
		replay.Call, replay.Return = s+86, sl.int64(s+87)
		return append(h, first, replay, refund(s+90, "2", amount/2))
	}
	return append(h, refund(s+82, "1", amount/2))
}

// appendSinks writes the stream sink's rows at quiescence, after end: one
// per (merchant, day) the ledger credited, totalling that day's credits, in
// merchant order so a seed gives the same file.
func appendSinks(h History, sl *slab, rng *rand.Rand, names []string, days []genDays, end int64) History {
	at := end + 1000
	row := func(m, day string, total int64) {
		h = append(h, Op{Process: "sink-reader", Op: OpSink, Call: at, Return: sl.int64(at + 1),
			Input: Input{Merchant: m, Day: day}, Output: sl.output(&Output{Total: sl.int64(total), Tag: sl.int64(1 + rng.Int63n(3))})})
		at += 2
	}
	for i, m := range names {
		if d := days[i]; d.onFirst {
			row(m, genFirstDay, d.first)
		}
		if d := days[i]; d.onNext {
			row(m, genNextDay, d.next)
		}
	}
	return h
}

// genProcs are one client's process names, made once, not once an op.
type genProcs struct {
	phone, retry, psp, ledger, push, reader string
	// The shape kinds' clients and ground-truth readers.
	device, resend, other, user, parser, state string
}

func newGenProcs(c int) genProcs {
	n := "-" + strconv.Itoa(c)
	return genProcs{phone: "phone" + n, retry: "retry" + n, psp: "psp" + n, ledger: "ledger" + n, push: "push" + n, reader: "reader" + n,
		device: "device" + n, resend: "device-resend" + n, other: "device-other" + n, user: "user" + n, parser: "parser" + n, state: "state-reader" + n}
}
