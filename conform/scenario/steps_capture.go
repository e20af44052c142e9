package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// LostThenCopies sends one follow-up step (capture, refund) of pay under
// key: the first attempt with the PSP's reply lost on every try with its PSP
// key (any POST naming one of the order's PSP payments), then copies at
// once, then retries until a final answer. It returns every attempt and how
// many PSP requests the fault swallowed.
func (t *T) LostThenCopies(ctx context.Context, req *config.Request, step string, in Intent, pay, key string, pis []string) ([]*driver.Attempt, int) {
	e := t.Env
	var rules []*pspfront.Rule
	for _, pi := range pis {
		rules = append(rules, e.Front.Add(pi, 0, pspfront.Lose))
	}
	start := history.Now()
	atts := []*driver.Attempt{t.Call(ctx, req, step+"; the PSP's reply is lost on every attempt with its key", in, pay, key)}
	fired := 0
	for _, r := range rules {
		r.Stop()
		fired += r.Fired()
	}
	e.NoteFaultFor("S-capture "+step+" reply lost", e.D.Intent(in.Caller, in.Key), start, history.Now())
	if fired == 0 {
		return atts, 0
	}
	var mu sync.Mutex
	AtCopies(CopiesPerStep, func(i int) {
		a := t.Call(ctx, req, fmt.Sprintf("%s repeated, copy %d/%d", step, i+1, CopiesPerStep), in, pay, key)
		mu.Lock()
		atts = append(atts, a)
		mu.Unlock()
	})
	return append(atts, t.convergeCall(ctx, req, step, in, pay, key)...), fired
}

// Call sends one follow-up request about pay, logged like a create.
func (t *T) Call(ctx context.Context, req *config.Request, step string, in Intent, pay, key string) *driver.Attempt {
	return t.CallPart(ctx, req, step, in, pay, key, 0)
}

// CallPart is call with {{amount}} set to part (0: the payment's amount).
func (t *T) CallPart(ctx context.Context, req *config.Request, step string, in Intent, pay, key string, part int64) *driver.Attempt {
	a := t.Env.D.CallPart(ctx, req, t.Check.ID+": "+step, in.Caller, 0, pay, key, part)
	t.Env.Logf("  %s #%d %s %s -> %s", t.Check.ID, a.Seq, step, describeReq(a), DescribeResp(a))
	return a
}

// convergeCall retries a follow-up step, as a client with a stable key
// would, with a growing backoff until a final answer or converge_within.
func (t *T) convergeCall(ctx context.Context, req *config.Request, step string, in Intent, pay, key string) []*driver.Attempt {
	return t.ConvergePart(ctx, req, step, in, pay, key, 0)
}

// ConvergePart is convergeCall with {{amount}} set to part (0: the
// payment's amount): the retries of a partial refund ask the same part.
func (t *T) ConvergePart(ctx context.Context, req *config.Request, step string, in Intent, pay, key string, part int64) []*driver.Attempt {
	deadline := time.Now().Add(t.Env.Cfg.ConvergeD())
	wait := 100 * time.Millisecond
	var out []*driver.Attempt
	for i := 1; ; i++ {
		a := t.CallPart(ctx, req, fmt.Sprintf("%s retried (%d)", step, i), in, pay, key, part)
		out = append(out, a)
		if Final(a) || ctx.Err() != nil || time.Now().Add(wait).After(deadline) {
			return out
		}
		if t.Env.sleepFor(ctx, WaitBackoff, wait) != nil {
			return out
		}
		wait = min(wait*3/2, 2*time.Second)
	}
}

// AtCopies runs n copies of send at once and waits for them.
func AtCopies(n int, send func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			send(i)
		}()
	}
	close(start)
	wg.Wait()
}

// Authorizations are the manual-capture PaymentIntents the PSP created for
// order, from the front's record (an authorization moves no money, so
// fakepsp's ground truth has no op for it).
func Authorizations(e *Env, order string) []string {
	var ids []string
	for _, x := range e.Front.Exchanges() {
		if x.Method != "POST" || x.Path != "/v1/payment_intents" || x.Status != 200 || !strings.Contains(x.Body, order) {
			continue
		}
		var pi struct {
			ID            string `json:"id"`
			CaptureMethod string `json:"capture_method"`
		}
		if json.Unmarshal([]byte(x.RespBody), &pi) == nil && pi.ID != "" && pi.CaptureMethod == "manual" && !slices.Contains(ids, pi.ID) {
			ids = append(ids, pi.ID)
		}
	}
	return ids
}

// RefundsOf are fakepsp's refunds of the captures' charges.
func RefundsOf(e *Env, caps []history.Op) []history.Op {
	var ids []string
	for _, c := range caps {
		if c.Output != nil && c.Output.ChargeID != "" {
			ids = append(ids, c.Output.ChargeID)
		}
	}
	var out []history.Op
	for _, r := range e.refunds() {
		if r.Input.ChargeID != "" && slices.Contains(ids, r.Input.ChargeID) {
			out = append(out, r)
		}
	}
	return out
}

func SumAmounts(ops []history.Op) int64 {
	var n int64
	for _, o := range ops {
		if o.Input.Amount != nil {
			n += *o.Input.Amount
		}
	}
	return n
}

func SeqsOf(atts []*driver.Attempt) []int {
	var out []int
	for _, a := range atts {
		out = append(out, a.Seq)
	}
	return out
}

func FirstSucceeded(atts []*driver.Attempt) *driver.Attempt {
	for _, a := range atts {
		if a.Outcome == history.OutcomeSucceeded {
			return a
		}
	}
	return nil
}

// ToldFailed reports each final answer of a step that says it did not
// happen although the PSP carried it out, and a last answer that is not
// succeeded: the client was told the money did not move.
func ToldFailed(t *T, atts []*driver.Attempt, done []history.Op, step, pay, key, intent string, amount int64) {
	var bad []string
	var seqs []int
	for _, a := range atts {
		if Final(a) && a.Outcome != history.OutcomeSucceeded {
			bad = append(bad, fmt.Sprintf("#%d %s", a.Seq, DescribeResp(a)))
			seqs = append(seqs, a.Seq)
		}
	}
	fin := Last(atts)
	if len(bad) == 0 && fin.Outcome == history.OutcomeSucceeded {
		return
	}
	f := t.Safety(checker.KindFailedButCharged, RuleCapture,
		"the PSP carried out the %s of %s (PSP keys %s), but with the same key %s the client was told %s; final answer after %s of retries: %s",
		step, pay, strings.Join(PSPKeys(done), ", "), key, strings.Join(bad, ", "), t.Env.Cfg.ConvergeD(), DescribeResp(fin))
	f.Intent, f.Amount, f.Charges, f.Seqs = intent, amount, done, append(seqs, fin.Seq)
}

// CaptureTruth is the PSP's ops for the checker, put under the intent.
func CaptureTruth(ops []history.Op, intent string) history.History {
	var h history.History
	for _, o := range ops {
		o.Intent = intent
		if o.Input.PSPKey == "" {
			o.Input.PSPKey = "(no idempotency key)"
		}
		h = append(h, o)
	}
	return h
}

// NoteFaultFor records a fault window that concerns one intent: its
// picture shows it, other intents' pictures do not.
func (e *Env) NoteFaultFor(name, intent string, start, end int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, checker.FaultWindow{Name: name, Intent: intent, Start: start, End: end})
}

// KeepHistory keeps the check's client ops and the PSP's ops for the
// report's pictures without running the checker over them: its intent
// model holds a "succeeded" to a charge made by then, and an authorization
// is answered succeeded before its capture moves the money. The findings
// above come from the PSP's ground truth instead.
func (t *T) KeepHistory(truth history.History) {
	var h history.History
	for _, op := range t.Env.D.Recorder.History() {
		if t.Intents[op.Intent] && op.Call >= t.start {
			h = append(h, op)
		}
	}
	t.ops = append(h, truth...)
}

// RuleCapture is what the authorize/capture check's findings cite.
const RuleCapture = "payment check: authorize, capture, refund; SCENARIOS.md B6"

// CopiesPerStep is how many concurrent copies of each step are sent.
const CopiesPerStep = 3
