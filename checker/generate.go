package checker

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

// Generate builds a legal history of a correct, exactly-once payment service
// under concurrent clients, for tests and benchmarks: per intent a create, a
// concurrent duplicate create from another process (answered in_progress),
// the PSP's charge, the ledger's credit and the push, about 5 ops (and the
// app's retry when its first answer was lost), plus balance reads. Every op gets a linearization point inside its interval and
// answers computed from those points, so the history is linearizable by
// construction. It returns the merchants' initial balances too.
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
	type credit struct {
		lin    int64
		amount int64
	}
	credits := map[string][]credit{}
	type read struct {
		op  int
		lin int64
	}
	var reads []read
	h := make(History, 0, o.Ops+o.Ops/50)
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
		credits[merchant] = append(credits[merchant], credit{lin: cr.Call + (*cr.Return-cr.Call)/2, amount: amount})
		push := Op{Process: p.push, Op: OpNotify, Call: s + 75, Return: sl.int64(s + 80), PaymentID: pid,
			Input: Input{ReplaceID: pid, Recipient: "user-" + ks}, Output: sl.output(&Output{Shown: sl.int(1), Alert: sl.bool(true)})}
		h = append(h, first, dup, charge, cr, push)
		if first.Return == nil {
			// The app whose answer was lost retries with the same key and
			// hears the outcome: a correct service converges (converge.go).
			h = append(h, Op{Process: p.phone, Op: OpCreate, Call: s + 40, Return: sl.int64(s + 48), Intent: intent, Input: in,
				Output: sl.output(&Output{Outcome: OutcomeSucceeded, PaymentID: pid})})
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
	rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] }) // line order carries no meaning
	return h, initial
}

// genProcs are one client's process names, made once, not once an op.
type genProcs struct{ phone, retry, psp, ledger, push, reader string }

func newGenProcs(c int) genProcs {
	n := "-" + strconv.Itoa(c)
	return genProcs{phone: "phone" + n, retry: "retry" + n, psp: "psp" + n, ledger: "ledger" + n, push: "push" + n, reader: "reader" + n}
}
