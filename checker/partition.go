package checker

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

// never is porcupine's infinite return for an op whose outcome is unknown.
const never = math.MaxInt64

// partition is one independent porcupine check: one intent, or one stretch of
// one merchant's history.
type partition struct {
	Name     string
	Intent   string
	Merchant string
	ops      []porcupine.Operation
	// rows names the picture's rows: rows[ClientId] is the op's process.
	rows []string
	// members are the history indexes of every op the partition stands for,
	// including unknown creates folded into one.
	members []int
	// model is shared by every partition of a kind: a pointer, not a copy
	// of its functions in each of hundreds of thousands of partitions.
	model *porcupine.Model
	// relaxedModel rebuilds the model ignoring some kinds (intents only).
	relaxedModel func(relaxed) porcupine.Model
	// deduped is the merchant stretch without repeated credits of a payment,
	// nil when it has none.
	deduped []porcupine.Operation
	hasRead bool          // a merchant stretch with a balance read
	init    merchantState // a merchant stretch's starting state
	stretch int           // a merchant stretch's number among its merchant's, from 0
	// h is the history members index, set once the partition may be
	// pictured (checkPiece): a streamed check's pieces each have their own.
	h history.History
}

// clients numbers processes within a partition for the picture. Most
// partitions have a handful, found by a look along the list; a map takes
// over for big ones.
type clients struct {
	names []string
	m     map[string]int
}

// newClients makes room for the handful most partitions have at once:
// growing the list one name at a time was three allocations a partition.
func newClients(ops int) clients {
	return clients{names: make([]string, 0, min(ops, 8))}
}

func (c *clients) id(p string) int {
	if c.m != nil {
		if id, ok := c.m[p]; ok {
			return id
		}
		c.m[p] = len(c.m)
		return c.m[p]
	}
	for i, n := range c.names {
		if n == p {
			return i
		}
	}
	c.names = append(c.names, p)
	if len(c.names) > 16 {
		c.m = make(map[string]int, 2*len(c.names))
		for i, n := range c.names {
			c.m[n] = i
		}
	}
	return len(c.names) - 1
}

// list is every process by its number.
func (c *clients) list() []string {
	if c.m == nil {
		return c.names
	}
	out := make([]string, len(c.m))
	for n, i := range c.m {
		out[i] = n
	}
	return out
}

// strictIntentModel is the intent model without relaxations, shared by
// every partition; sharedMerchantModel likewise for merchant stretches.
var (
	strictIntentModel   = intentModel(nil)
	sharedMerchantModel = merchantModel()
)

func retOf(op *history.Op) int64 {
	if op.Return == nil {
		return never
	}
	return *op.Return
}

// intentPartitions groups creates, resolves and charges by linked intent.
//
// Unknown creates (return null, or answered "error") with one fingerprint are
// folded into the earliest of them, and unknown resolves likewise. This is
// sound: such a step is always legal and applying it twice is applying it
// once, so any linearization of the copies can use the earliest copy at the
// first copy's place (it is called no later) and push the rest to the end,
// where an always-legal step changes nothing that is checked. It is what
// keeps a retry storm of timed-out requests from exploding porcupine's search.
func intentPartitions(h history.History, l *links, truth bool) []*partition {
	byIntent := l.ids.group(h, func(op *history.Op) bool {
		return op.Op == history.OpCreate || op.Op == history.OpResolve || op.Op == history.OpCharge
	})
	var ids []int32
	for id, idx := range byIntent {
		if len(idx) > 0 {
			ids = append(ids, int32(id))
		}
	}
	names := l.ids.names
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	parts := make([]*partition, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, intentPartition(h, names[id], byIntent[id], truth))
	}
	return parts
}

func intentPartition(h history.History, intent string, idx []int, truth bool) *partition {
	p := &partition{Name: "intent " + intent, Intent: intent, members: idx, ops: make([]porcupine.Operation, 0, len(idx))}
	cl := newClients(len(idx))
	var folded map[string]*intentInput // fold key -> kept op
	var keptAt map[string]int          // fold key -> position in p.ops
	// Creates that could claim (see claims), by call: a charge gets the fingerprints of those called before it
	// returned (see intentState.ClaimFPs).
	var claimers []int
	for _, i := range idx {
		if op := &h[i]; op.Op == history.OpCreate && claims(op) {
			claimers = append(claimers, i)
		}
	}
	ins := make([]intentInput, len(idx))
	for k, i := range idx {
		op := &h[i]
		in := &ins[k]
		*in = intentInput{Kind: op.Op, Index: i, Copies: 1, Truth: truth}
		ret := retOf(op)
		switch op.Op {
		case history.OpCharge:
			in.ClaimFPs = claimFPs(h, claimers, ret)
			in.PSPKey = op.Input.PSPKey
		default:
			in.Unknown = op.Output == nil || op.Output.Outcome == history.OutcomeError
			if !in.Unknown {
				in.Outcome, in.Payment = op.Output.Outcome, op.Output.PaymentID
			}
		}
		if op.Input.Amount != nil {
			in.Amount = *op.Input.Amount
		}
		if op.Op != history.OpResolve {
			in.Currency = op.Input.Currency
		}
		if op.Op == history.OpCreate {
			in.FP = op.Input.Fingerprint
		}
		if in.Unknown {
			ret = never
			if folded == nil {
				folded, keptAt = map[string]*intentInput{}, map[string]int{}
			}
			key := op.Op + "\x00" + in.FP + "\x00" + in.Currency + "\x00" + itoa64(in.Amount)
			if k, ok := folded[key]; ok {
				k.Copies++
				if op.Call < h[k.Index].Call {
					k.Index = i
					p.ops[keptAt[key]].Call = op.Call
					p.ops[keptAt[key]].ClientId = cl.id(op.Process)
				}
				continue
			}
			folded[key] = in
			keptAt[key] = len(p.ops)
		}
		p.ops = append(p.ops, porcupine.Operation{ClientId: cl.id(op.Process), Input: in, Call: op.Call, Output: nil, Return: ret})
	}
	p.model = &strictIntentModel
	p.relaxedModel = intentModel
	p.rows = cl.list()
	return p
}

// claims reports whether a create may have claimed its intent: an unknown
// outcome may, and so may every answer but mismatch, void and in_progress
// (which say another request holds the key).
func claims(op *history.Op) bool {
	if op.Output == nil {
		return true
	}
	switch op.Output.Outcome {
	case history.OutcomeMismatch, history.OutcomeVoid, history.OutcomeInProgress:
		return false
	}
	return true
}

// claimFPs joins the distinct fingerprints of the claimers called by ret,
// "\x00"-framed, or "" when there is none (nothing to hold the claim to).
func claimFPs(h history.History, claimers []int, ret int64) string {
	var b []byte
	for _, i := range claimers {
		if h[i].Call > ret {
			continue
		}
		fp := h[i].Input.Fingerprint
		if bytes.Contains(b, []byte("\x00"+fp+"\x00")) {
			continue
		}
		if len(b) == 0 {
			b = append(b, 0)
		}
		b = append(append(b, fp...), 0)
	}
	return string(b)
}

func itoa64(n int64) string {
	if n < 0 {
		return "-" + itoa(int(-n))
	}
	return itoa(int(n))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
