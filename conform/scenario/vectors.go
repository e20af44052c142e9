package scenario

import (
	"context"
	"fmt"
	"mime"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
)

const draft = "draft-ietf-httpapi-idempotency-key-header"

// VectorChecks are the protocol vectors public conformance suites check
// (the protocol vectors), judged against the configured profile.
func VectorChecks() []*Check {
	return []*Check{
		{ID: "P-once", Title: "POST executes once", Level: Protocol, Rule: draft + " §2", Run: vOnce},
		{ID: "P-replay", Title: "a retry replays byte-identical status and body", Level: Protocol, Rule: draft + " §2.6", Run: vReplay},
		{ID: "P-mismatch", Title: "mismatch rejected (profile status)", Level: Protocol, Rule: draft + " §2.7 / profile mismatch_status", Run: vMismatch},
		{ID: "P-mismatch-no-poison", Title: "a mismatch does not poison the key", Level: Protocol, Rule: draft + " §2.7", Run: vNoPoison},
		{ID: "P-conflict", Title: "a concurrent duplicate gets the in-progress status", Level: Protocol, Rule: draft + " §2.7 / profile in_progress_status", Run: vConflict},
		{ID: "P-retry-after", Title: "Retry-After on the in-progress answer, per profile", Level: Protocol, Rule: "profile retry_after", Needs: needRetryAfter, Run: vRetryAfter},
		{ID: "P-missing-key", Title: "a missing key gets 400", Level: Protocol, Rule: draft + " §2.7 / profile missing_key_status", Run: vMissingKey},
		{ID: "P-empty-key", Title: "an empty key is rejected", Level: Protocol, Rule: draft + " §2.1", Run: vEmptyKey},
		{ID: "P-long-key", Title: "an over-long key is rejected", Level: Protocol, Rule: "profile max_key_length", Run: vLongKey},
		{ID: "P-quoted-key", Title: "a quoted Structured-Field key is the bare key", Level: Protocol, Rule: draft + " §2.1 (RFC 8941 sf-string)", Needs: needQuoted, Run: vQuoted},
		{ID: "P-header-case", Title: "the key header name is case-insensitive", Level: Protocol, Rule: "RFC 9110 §5.1", Needs: needHeaderKey, Run: vHeaderCase},
		{ID: "P-get-ignores-key", Title: "GET ignores the key", Level: Protocol, Rule: draft + " §1 (idempotent methods)", Run: vGet},
		{ID: "P-two-keys", Title: "two keys on the same body execute twice", Level: Protocol, Rule: draft + " §2.2 (key identifies the request)", Run: vTwoKeys},
		{ID: "P-replay-header", Title: "the replay header is on replays only", Level: Protocol, Rule: "profile replay_header", Needs: needReplayHeader, Run: vReplayHeader},
		{ID: "P-4xx-replayed", Title: "a 4xx is replayed", Level: Protocol, Rule: draft + " §2.6", Run: v4xx},
		{ID: "P-5xx-stored", Title: "5xx stored or not, per profile", Level: Protocol, Rule: "profile stores_5xx", Needs: need5xx, Run: v5xx},
		{ID: "P-problem-json", Title: "error bodies are application/problem+json with a code", Level: Protocol, Rule: draft + " §2.7 (RFC 9457)", Needs: needProblem, Run: vProblem},
		{ID: "P-expiry", Title: "a retry after the documented key window is answered", Level: Protocol, Rule: draft + " §2.5 expiry", Needs: needWindow, Run: vExpiry},
	}
}

func needRetryAfter(e *Env) string {
	if e.Cfg.Proto().RetryAfter == "" {
		return "profile leaves Retry-After open"
	}
	return ""
}

func needQuoted(e *Env) string {
	if e.Cfg.Create.Key.Header == "" {
		return "the key is a body field"
	}
	if !e.Cfg.Proto().QuotedKeySame {
		return "profile does not treat \"K\" as K"
	}
	return ""
}

func needHeaderKey(e *Env) string {
	if e.Cfg.Create.Key.Header == "" {
		return "the key is a body field"
	}
	return ""
}

func needReplayHeader(e *Env) string {
	if e.Cfg.Proto().ReplayHeader == "" {
		return "profile names no replay header"
	}
	return ""
}

func need5xx(e *Env) string {
	if e.Cfg.Proto().Stores5xx == "" {
		return "profile leaves 5xx storage open"
	}
	return needPSP(e)
}

func needProblem(e *Env) string {
	if !e.Cfg.Proto().ProblemJSON {
		return "profile does not require problem+json"
	}
	return ""
}

func needWindow(e *Env) string {
	w := e.Cfg.KeyWindowD()
	if w == 0 {
		return "no key_window configured"
	}
	if !e.CanWait(w) {
		return fmt.Sprintf("key_window %s is longer than --max-wait %s", w, e.MaxWait)
	}
	return ""
}

func final(ctx context.Context, t *T, step string, in Intent, mod func(*driver.Send)) *driver.Attempt {
	return last(t.RetryUntilFinal(ctx, step, in, 10, 150*time.Millisecond, mod))
}

func vOnce(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	final(ctx, t, "create", in, nil)
	t.Send(ctx, "retry", in, nil)
	t.Send(ctx, "retry", in, nil)
	t.Judge(ctx, nil, in)
	if cs, ok := e.ChargesFor(ctx, in.Meaning.Amount); ok && len(cs) == 0 {
		t.Deviation(t.check.Rule, "the create made no PSP charge at all")
	}
	t.Passf("one execution for three sends")
}

func vReplay(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := final(ctx, t, "create", in, nil)
	b := t.Send(ctx, "retry", in, nil)
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.check.Rule, "first answer %d %q, retry %d %q", a.Status, clip(a.RespBody), b.Status, clip(b.RespBody))
	}
	t.Judge(ctx, nil, in)
	t.Passf("retry replayed %d and the same body", b.Status)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

func mismatchOK(e *Env, a *driver.Attempt) string {
	p := e.Cfg.Proto()
	if a.Status != p.MismatchStatus {
		return fmt.Sprintf("answered %d, profile %s expects %d", a.Status, p.Name, p.MismatchStatus)
	}
	if p.MismatchCode != "" && !strings.Contains(a.RespBody, p.MismatchCode) {
		return fmt.Sprintf("body lacks %q", p.MismatchCode)
	}
	return ""
}

func vMismatch(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	final(ctx, t, "create", in, nil)
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "same key, other amount", ch, nil)
	if why := mismatchOK(e, m); why != "" {
		t.Deviation(t.check.Rule, "mismatch %s", why)
	}
	t.Passf("mismatch answered %d", m.Status)
}

func vNoPoison(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := final(ctx, t, "create", in, nil)
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	t.Send(ctx, "same key, other amount", ch, nil)
	b := t.Send(ctx, "the original again", in, nil)
	if b.Status != a.Status || b.PaymentID != a.PaymentID {
		t.Deviation(t.check.Rule, "after the mismatch the original got %d %s (first %d %s)", b.Status, b.PaymentID, a.Status, a.PaymentID)
	}
	t.Passf("original still replays %d %s", b.Status, b.PaymentID)
}

// conflictRun makes a second copy arrive while the first is executing and
// returns the answers that were not the owner's. Where idemcheck runs the
// PSP, the first copy is held at the PSP until the second has its answer.
func conflictRun(ctx context.Context, e *Env, t *T) (in Intent, others []*driver.Attempt) {
	in = e.NewIntent(0)
	if e.PSP == nil {
		atts := concurrent(ctx, e, t, in, 2, false)
		for _, a := range atts {
			if !Final(a) {
				return in, []*driver.Attempt{a}
			}
		}
		return in, atts[1:]
	}
	gate := e.PSP.Faults().GateBeforeCharge(fakepsp.Match{Amount: in.Meaning.Amount})
	defer gate.Remove()
	first := background(ctx, t, "first copy (held at the PSP)", in, nil)
	if err := waitFired(ctx, gate, e.Cfg.TimeoutD()); err != nil {
		gate.Release()
		a := <-first
		t.Errorf("the first copy never reached the PSP (%s): %v", describeResp(a), err)
		return in, nil
	}
	// A target that makes the copy wait for the first would wait on the
	// gate: release it after a bounded time whatever happened.
	second := background(ctx, t, "concurrent copy", in, nil)
	var b *driver.Attempt
	select {
	case b = <-second:
	case <-time.After(min(2*time.Second, e.Cfg.TimeoutD()/2)):
	}
	gate.Release()
	if b == nil {
		b = <-second
	}
	<-first
	return in, []*driver.Attempt{b}
}

func vConflict(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	in, others := conflictRun(ctx, e, t)
	for _, o := range others {
		if o.Status != p.InProgressStatus {
			t.Deviation(t.check.Rule, "the concurrent duplicate got %d %s, profile %s expects %d", o.Status, o.Outcome, p.Name, p.InProgressStatus)
		}
	}
	t.Judge(ctx, nil, in)
	t.Passf("concurrent duplicate got %d", p.InProgressStatus)
}

func vRetryAfter(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	_, others := conflictRun(ctx, e, t)
	for _, o := range others {
		if o.Status != p.InProgressStatus {
			t.NotApplicable("no in-progress answer to inspect (got %d)", o.Status)
			return
		}
		_, has := o.Header("Retry-After")
		if has != (p.RetryAfter == "required") {
			t.Deviation(t.check.Rule, "Retry-After present=%v, profile %s says %s", has, p.Name, p.RetryAfter)
		}
	}
	t.Passf("Retry-After %s as the profile says", p.RetryAfter)
}

func keyRejected(ctx context.Context, e *Env, t *T, step string, mod func(*driver.Send)) {
	in := e.NewIntent(0)
	before, _ := e.ChargesFor(ctx, in.Meaning.Amount)
	a := t.Send(ctx, step, in, func(s *driver.Send) { s.NoHistory = true; mod(s) })
	want := e.Cfg.Proto().MissingKeyStatus
	if a.Status != want {
		t.Deviation(t.check.Rule, "%s: answered %d %s, expected %d", step, a.Status, a.Outcome, want)
	}
	e.Settle(ctx)
	if after, ok := e.ChargesFor(ctx, in.Meaning.Amount); ok && len(after) > len(before) {
		t.Deviation(t.check.Rule, "%s: the request was executed (PSP charged %d)", step, in.Meaning.Amount)
	}
	t.Passf("%s answered %d", step, a.Status)
}

func vMissingKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "no key", func(s *driver.Send) { s.KeyMode = driver.KeyOmit })
}

func vEmptyKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "empty key", func(s *driver.Send) { s.Key = "" })
}

func vLongKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "over-long key", func(s *driver.Send) {
		s.Key = strings.Repeat("k", e.Cfg.Proto().MaxKeyLength+1)
	})
}

func sameReplay(e *Env, t *T, what string, a, b *driver.Attempt) {
	if b.PaymentID != a.PaymentID || b.Status != a.Status {
		t.Deviation(t.check.Rule, "%s answered %d %s, the plain key %d %s", what, b.Status, b.PaymentID, a.Status, a.PaymentID)
	}
}

func vQuoted(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := final(ctx, t, "bare key", in, nil)
	b := t.Send(ctx, "quoted key", in, func(s *driver.Send) { s.KeyMode = driver.KeyQuoted; s.NoHistory = true })
	sameReplay(e, t, "the quoted key", a, b)
	e.Settle(ctx)
	if cs, ok := e.ChargesFor(ctx, in.Meaning.Amount); ok && len(cs) > 1 {
		t.Deviation(t.check.Rule, "the quoted key executed again (%d charges)", len(cs))
	}
	t.Passf("\"K\" replayed K's answer")
}

func vHeaderCase(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	a := final(ctx, t, "canonical header name", in, nil)
	b := t.Send(ctx, "lower-case header name", in, func(s *driver.Send) { s.KeyMode = driver.KeyHeaderLower })
	sameReplay(e, t, "the lower-case header", a, b)
	t.Judge(ctx, nil, in)
	t.Passf("lower-case header replayed the answer")
}

func vGet(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	g := t.Send(ctx, "GET with a key", in, func(s *driver.Send) { s.Method = "GET"; s.NoHistory = true })
	if g.Status == e.Cfg.Proto().InProgressStatus || g.Status == e.Cfg.Proto().MismatchStatus {
		t.Deviation(t.check.Rule, "GET with a key answered %d", g.Status)
	}
	p := final(ctx, t, "POST with the same key", in, nil)
	if p.Outcome != "succeeded" && p.Outcome != "failed" {
		t.Deviation(t.check.Rule, "the POST after a GET with its key got %d %s: the GET used the key", p.Status, p.Outcome)
	}
	t.Judge(ctx, nil, in)
	t.Passf("GET answered %d; the key stayed free", g.Status)
}

func vTwoKeys(ctx context.Context, e *Env, t *T) {
	in1 := e.NewIntent(0)
	in2 := in1
	in2.Key = e.NewIntent(0).Key
	a := final(ctx, t, "first key", in1, nil)
	b := final(ctx, t, "second key, same body", in2, nil)
	if a.PaymentID != "" && a.PaymentID == b.PaymentID {
		t.Deviation(t.check.Rule, "two keys got one payment %s: the target deduplicates by body", a.PaymentID)
	}
	e.Settle(ctx)
	if cs, ok := e.ChargesFor(ctx, in1.Meaning.Amount); ok && len(cs) != 2 {
		t.Deviation(t.check.Rule, "two keys on one body made %d charges, expected 2", len(cs))
	}
	t.Judge(ctx, nil, in1, in2)
	t.Passf("two payments %s, %s", a.PaymentID, b.PaymentID)
}

func vReplayHeader(ctx context.Context, e *Env, t *T) {
	name := e.Cfg.Proto().ReplayHeader
	in := e.NewIntent(0)
	a := final(ctx, t, "create", in, nil)
	b := t.Send(ctx, "retry", in, nil)
	if _, has := a.Header(name); has {
		t.Deviation(t.check.Rule, "the first answer carries %s", name)
	}
	if _, has := b.Header(name); !has {
		t.Deviation(t.check.Rule, "the replay lacks %s", name)
	}
	t.Passf("%s on the replay only", name)
}

func v4xx(ctx context.Context, e *Env, t *T) {
	in := e.NewIntent(0)
	in.Meaning.Amount = 0
	a := t.Send(ctx, "invalid request (amount 0)", in, func(s *driver.Send) { s.NoHistory = true })
	if a.Status < 400 || a.Status > 499 {
		t.NotApplicable("amount 0 was answered %d, not a 4xx", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, func(s *driver.Send) { s.NoHistory = true })
	if a.Status != b.Status || a.RespBody != b.RespBody {
		t.Deviation(t.check.Rule, "4xx %d %q, retry %d %q", a.Status, clip(a.RespBody), b.Status, clip(b.RespBody))
	}
	t.Passf("%d replayed", a.Status)
}

func v5xx(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	f := e.PSP.Faults().Error500BeforeCharge(fakepsp500(in))
	defer f.Remove()
	a := t.Send(ctx, "PSP fails before charging", in, nil)
	f.Remove()
	if a.Status < 500 {
		t.NotApplicable("the target answered %d, not a 5xx, to a PSP failure", a.Status)
		return
	}
	b := t.Send(ctx, "retry", in, nil)
	stored := b.Status == a.Status && b.RespBody == a.RespBody
	if stored != (p.Stores5xx == "stored") {
		t.Deviation(t.check.Rule, "5xx stored=%v (retry answered %d), profile %s says %s", stored, b.Status, p.Name, p.Stores5xx)
	}
	t.Passf("5xx %s", p.Stores5xx)
}

func vProblem(ctx context.Context, e *Env, t *T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	a := t.Send(ctx, "no key (an error answer)", in, func(s *driver.Send) { s.KeyMode = driver.KeyOmit; s.NoHistory = true })
	final(ctx, t, "create", in, nil)
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "mismatch (an error answer)", ch, nil)
	member := p.ProblemCode
	if member == "" {
		member = "code"
	}
	for _, x := range []*driver.Attempt{a, m} {
		if x.Status < 400 {
			continue
		}
		ct, _ := x.Header("Content-Type")
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "application/problem+json" {
			t.Deviation(t.check.Rule, "error %d has Content-Type %q", x.Status, ct)
			continue
		}
		if _, ok := driver.JSONPath([]byte(x.RespBody), member); !ok {
			t.Deviation(t.check.Rule, "error %d lacks the %q member", x.Status, member)
		}
	}
	t.Passf("errors are problem+json with %q", member)
}

func vExpiry(ctx context.Context, e *Env, t *T) {
	w := e.Cfg.KeyWindowD()
	in := e.NewIntent(0)
	a := final(ctx, t, "create", in, nil)
	wait := w + w/5 + 200*time.Millisecond
	if err := e.Wait(ctx, wait); err != nil {
		t.Errorf("%v", err)
		return
	}
	b := t.Send(ctx, fmt.Sprintf("retry %s after, past the window", wait), in, func(s *driver.Send) { s.NoHistory = true })
	if b.Outcome != "succeeded" && b.Outcome != "processing" && b.Outcome != "failed" {
		t.Deviation(t.check.Rule, "a retry after the window got %d %s: the expired record is still trusted", b.Status, b.Outcome)
	}
	e.Settle(ctx)
	again := ""
	if cs, ok := e.ChargesFor(ctx, in.Meaning.Amount); ok && len(cs) > 1 {
		again = fmt.Sprintf(" (executed again: %d charges, allowed past the window)", len(cs))
	}
	t.Passf("after %s: %s, then %s%s", wait, describeResp(a), describeResp(b), again)
}

func fakepsp500(in Intent) fakepsp.Match { return fakepsp.Match{Amount: in.Meaning.Amount, Times: 1} }
