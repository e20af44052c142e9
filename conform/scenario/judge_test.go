package scenario

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/faults"
)

func charge(key string, amount int64, md map[string]string, id string) history.Op {
	return history.Op{Process: "psp", Op: history.OpCharge, Call: 1, Return: history.Int64(2),
		Input: history.Input{PSPKey: key, Amount: history.Int64(amount), Metadata: md}, Output: &history.Output{ChargeID: id}}
}

func TestAttributionByOrderIDThenRequestThenAmount(t *testing.T) {
	orders := []Order{{ID: "ord-000001-00001", Amount: 1001}, {ID: "ord-000001-00002", Amount: 1002, Alt: []int64{1005}},
		{ID: "ord-000001-00010", Amount: 1010}}
	ex := []pspfront.Exchange{
		{Key: "k-fee", Body: "amount=1031\ndescription=order ord-000001-00001 (fee)\n", RespBody: `{"id":"pi_1"}`},
		{Key: "k-other", Body: "amount=7\n", RespBody: `{"latest_charge":"ch_named"}`},
	}
	charges := []history.Op{
		charge("k-md", 1010, map[string]string{"order": "ord-000001-00010"}, "ch_a"), // metadata, not ord-...-00001
		charge("k-fee", 1031, nil, "ch_b"),                                           // the request carried the order id
		charge("k-x", 1005, nil, "ch_c"),                                             // amount: order 2's other amount
		charge("k-y", 4242, nil, "ch_d"),                                             // nothing explains it
	}
	a := Attribute(charges, ex, orders)
	want := map[string][]string{"ord-000001-00010": {"ch_a"}, "ord-000001-00001": {"ch_b"}, "ord-000001-00002": {"ch_c"}}
	for id, ids := range want {
		got := a.By[id]
		if len(got) != len(ids) || got[0].Output.ChargeID != ids[0] {
			t.Errorf("order %s: got %v, want %v", id, got, ids)
		}
	}
	if len(a.Unattributed) != 1 || a.Unattributed[0].Output.ChargeID != "ch_d" {
		t.Errorf("unattributed %v, want ch_d", a.Unattributed)
	}
	if a.How[ByMetadata] != 1 || a.How[ByRequest] != 1 || a.How[ByAmount] != 1 {
		t.Errorf("how %v", a.How)
	}
}

func TestKeysAreUUIDv4ByDefaultAndSeeded(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	k1 := NewKey(rand.New(rand.NewPCG(1, 2)), config.Key{Format: "uuid"})
	k2 := NewKey(rand.New(rand.NewPCG(1, 2)), config.Key{Format: "uuid"})
	if !uuid.MatchString(k1) || k1 != k2 {
		t.Fatalf("keys %q %q: want the same UUID v4 from the same seed", k1, k2)
	}
	r := NewKey(rand.New(rand.NewPCG(1, 2)), config.Key{Format: "random", Prefix: "idem_", Length: 20})
	if len(r) != 20 || !strings.HasPrefix(r, "idem_") {
		t.Fatalf("random key %q: want 20 characters starting idem_", r)
	}
}

// staticEffects is a PSP log given by the test: the judge is pure logic.
type staticEffects []history.Op

func (s staticEffects) Charges(context.Context) ([]history.Op, error) { return s, nil }
func (s staticEffects) Count(context.Context) (int64, error)          { return int64(len(s)), nil }

func testEnv(t *testing.T, effects Effects) *Env {
	t.Helper()
	text := strings.Join([]string{
		`target: {base_urls: ["http://127.0.0.1:1"]}`,
		`create: {path: /payments, body: '{"order_id": "{{order_id}}", "amount": {{amount}}}'}`,
		`callers: [{name: u1}]`,
		`outcomes: {payment_id: id, rules: [{status: [201], outcome: succeeded}]}`,
		`effects: {http_counter: {url: "http://127.0.0.1:1/c", field: n}}`,
		`converge_within: 300ms`, `settle: 10ms`, `timeout: 200ms`}, "\n")
	cfg, err := config.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	// Port 1 refuses: every send is an unknown outcome, and no server runs.
	return &Env{Cfg: cfg, D: driver.New(cfg, []string{"http://127.0.0.1:1"}), Effects: effects, Seed: 5}
}

// The service never answered and nothing was charged: no pass.
func TestNoAnswerIsInconclusive(t *testing.T) {
	e := testEnv(t, staticEffects{})
	c := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		in := e.NewIntent(0)
		t.Converge(ctx, "create", in, nil)
		t.Judge(ctx, nil, in)
		t.Passf("one charge")
	}}
	r := RunCheck(context.Background(), e, c)
	if r.Verdict != Inconclusive || !strings.Contains(r.Precondition, "never answered") {
		t.Fatalf("verdict %s (%s), want inconclusive: the service never answered", r.Verdict, r.Why)
	}
}

// The PSP charged the order, nothing refunded it, and the client's final
// answer after converge_within is no answer: the buyer paid and was not told.
func TestChargedWithoutAFinalSuccessIsFailedButCharged(t *testing.T) {
	var e *Env
	eff := &lateEffects{}
	e = testEnv(t, eff)
	c := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		in := e.NewIntent(0)
		eff.ops = []history.Op{charge("k1", in.Meaning.Amount, map[string]string{"order_id": in.Meaning.OrderID}, "ch_1")}
		t.Converge(ctx, "create", in, nil)
		t.Judge(ctx, nil, in)
	}}
	r := RunCheck(context.Background(), e, c)
	if r.Verdict != Violation || len(r.Findings) == 0 || r.Findings[0].Kind != checker.KindFailedButCharged ||
		!strings.Contains(r.Findings[0].Message, "ch_1") {
		t.Fatalf("verdict %s findings %+v, want failed-but-charged naming ch_1", r.Verdict, r.Findings)
	}
}

type lateEffects struct{ ops []history.Op }

func (l *lateEffects) Charges(context.Context) ([]history.Op, error) { return l.ops, nil }
func (l *lateEffects) Count(context.Context) (int64, error)          { return int64(len(l.ops)), nil }

// A checker result with an undecided partition or a refused op is not a pass.
func TestUndecidedCheckerResultIsInconclusive(t *testing.T) {
	e := testEnv(t, nil)
	c := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		// A charge op without amount is refused by the checker (Invalid).
		t.checkHistory(history.History{{Process: "psp", Op: history.OpCharge, Call: 1, Return: history.Int64(2), Intent: "i",
			Input: history.Input{PSPKey: "k"}, Output: &history.Output{ChargeID: "c"}}}, nil)
	}}
	r := RunCheck(context.Background(), e, c)
	if r.Verdict != Inconclusive || !strings.Contains(r.Precondition, "refused") {
		t.Fatalf("verdict %s (%s), want inconclusive: the checker refused an op", r.Verdict, r.Why)
	}
}

// A fault that left the system broken by the harness (the failover's
// take-over failing with R1 down) makes the run errored, over the safety
// findings it saw after: they are the harness's doing, not the service's.
func TestABrokenSystemIsErroredNotAViolation(t *testing.T) {
	e := testEnv(t, nil)
	c := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		t.Safety(checker.KindFailedButCharged, "rule", "the buyer paid and was not told")
		t.Broke("region-failover (intent 3): %v", faults.ErrSystemBroken)
		t.Inconclusive("every fault fired", "")
	}}
	r := RunCheck(context.Background(), e, c)
	if r.Verdict != Errored || !strings.Contains(r.Why, "broke the system") || !strings.Contains(r.Why, "not a finding") {
		t.Fatalf("verdict %s (%s), want errored naming the broken system and setting the finding aside", r.Verdict, r.Why)
	}
}

// An op of the check the recorder refused is missing from the history: the
// checker does not judge what is left, the check is inconclusive quoting the
// refusal. Another intent's refusal is not this check's, and a refusal from
// before a check began is not reported again by the next.
func TestRefusedOpIsInconclusive(t *testing.T) {
	e := testEnv(t, nil)
	create := func(t *T, name string, in history.Input) {
		t.mu.Lock()
		t.Intents[name] = true
		t.mu.Unlock()
		_ = t.Env.D.Recorder.Begin("p-"+name, history.OpCreate, name, in).End(history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_1"})
	}
	good := history.Input{Fingerprint: "f", Amount: history.Int64(1)}
	first := &Check{ID: "X", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		create(t, "payments:u1:K1", good)
		create(t, "payments:u1:K2", history.Input{Amount: history.Int64(1)}) // no fingerprint: refused
		_ = e.D.Recorder.Begin("p-other", history.OpCreate, "payments:other", history.Input{}).Unknown()
		t.checkHistory(nil, nil)
	}}
	r := RunCheck(context.Background(), e, first)
	if r.Verdict != Inconclusive || !strings.Contains(r.Precondition, "refused 1 op(s)") ||
		!strings.Contains(r.Precondition, `field "input.fingerprint": missing`) || r.Checker != nil {
		t.Fatalf("verdict %s (%s), checker run %v; want inconclusive quoting the one refusal of this check, the checker not run",
			r.Verdict, r.Why, r.Checker != nil)
	}
	second := &Check{ID: "Y", Level: Safety, Run: func(ctx context.Context, e *Env, t *T) {
		create(t, "payments:u1:K3", good)
		t.checkHistory(nil, nil)
	}}
	r = RunCheck(context.Background(), e, second)
	if r.Verdict != Pass || r.Checker == nil || len(r.History) != 1 {
		t.Fatalf("verdict %s (%s), %d ops judged; want the next check's own create judged and a pass", r.Verdict, r.Why, len(r.History))
	}
}
