package history

import (
	"math/rand"
	"sort"
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
	rng := rand.New(rand.NewSource(o.Seed))
	intents := o.Ops / 5
	merchants := intents/o.PerMerchant + 1
	initial := map[string]int64{}
	names := make([]string, merchants)
	for m := range names {
		names[m] = "m" + strconv.Itoa(m)
		initial[names[m]] = rng.Int63n(100000)
	}
	credits := map[string][]genCredit{}
	type read struct {
		op  int
		lin int64
	}
	var reads []read
	h := make(History, 0, o.Ops+o.Ops/20)
	unknown := func() bool { return rng.Float64() < o.UnknownRate }
	start := make([]int64, o.Clients)
	procs := make([]genProcs, o.Clients)
	for c := range start {
		start[c] = int64(c) * 37 // interleave the clients
		procs[c] = newGenProcs(c)
	}
	// The ops' small pointed-to values come from blocks, not one allocation
	// each: a 1M-op history is otherwise millions of them for the collector.
	var sl slab
	g := &genShapes{rng: rng, sl: &sl, unknown: unknown}
	for k := 0; k < intents; k++ {
		c := k % o.Clients
		s := start[c]
		start[c] += 100 + rng.Int63n(20)
		ks := strconv.Itoa(k)
		intent := "payments:u" + ks + ":K" + strconv.Itoa(rng.Intn(3))
		pid := "pay_" + ks
		merchant := names[k%merchants]
		amount := 100 + rng.Int63n(10000)
		fp := "fp" + ks
		in := Input{Fingerprint: fp, Amount: sl.int64(amount), Currency: "USD"}
		p := &procs[c]
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
		credits[merchant] = append(credits[merchant], genCredit{lin: cr.Call + (*cr.Return-cr.Call)/2, amount: amount, late: cr.Input.Day != ""})
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
			h = appendRefunds(h, &sl, p.psp, pid, amount, s, int64(k/genRefundEvery)%3)
		}
		switch k % genShapeEvery {
		case 0:
			h = g.item(h, p, ks, s, (k/genShapeEvery)%2 == 1)
		case genShapeEvery / 2:
			// The first message is a deleted one, so the smallest
			// histories hold a delete too.
			h = g.message(h, p, ks, int64(k), s, int64(k/genShapeEvery+1)%3)
		}
		if k%50 == 0 {
			b := Op{Process: p.reader, Op: OpBalance, Call: s + 25 + rng.Int63n(40), Input: Input{Merchant: merchant}}
			b.Return = sl.int64(b.Call + rng.Int63n(30))
			reads = append(reads, read{op: len(h), lin: b.Call + (*b.Return-b.Call)/2})
			h = append(h, b)
		}
	}
	// A read answers the base plus every credit linearized before its own
	// point; a credit at the same point counts as before.
	for m := range credits {
		sort.Slice(credits[m], func(i, j int) bool { return credits[m][i].lin < credits[m][j].lin })
	}
	for _, r := range reads {
		m := h[r.op].Input.Merchant
		cs := credits[m]
		n := sort.Search(len(cs), func(i int) bool { return cs[i].lin > r.lin })
		sum := initial[m]
		for _, c := range cs[:n] {
			sum += c.amount
		}
		h[r.op].Output = sl.output(&Output{Balance: sl.int64(sum)})
	}
	var end int64
	for _, s := range start {
		end = max(end, s)
	}
	h = appendSinks(h, &sl, rng, names, credits, end)
	rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] }) // line order carries no meaning
	return h, initial
}

// genCredit is what the balance reads and the sink rows need of a credit.
type genCredit struct {
	lin    int64
	amount int64
	late   bool // booked on genNextDay
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
func appendSinks(h History, sl *slab, rng *rand.Rand, names []string, credits map[string][]genCredit, end int64) History {
	at := end + 1000
	row := func(m, day string, total int64) {
		h = append(h, Op{Process: "sink-reader", Op: OpSink, Call: at, Return: sl.int64(at + 1),
			Input: Input{Merchant: m, Day: day}, Output: sl.output(&Output{Total: sl.int64(total), Tag: sl.int64(1 + rng.Int63n(3))})})
		at += 2
	}
	for _, m := range names {
		var first, next int64
		var onFirst, onNext bool
		for _, c := range credits[m] {
			if c.late {
				next, onNext = next+c.amount, true
			} else {
				first, onFirst = first+c.amount, true
			}
		}
		if onFirst {
			row(m, genFirstDay, first)
		}
		if onNext {
			row(m, genNextDay, next)
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
