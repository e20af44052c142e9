package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// All is the one ordered list of checks a run goes through: the safety
// checks (one file each: a1.go, a2.go, ...), then the protocol vectors
// (p_*.go). The steps they share are in steps.go, the judge in judge.go.
func All() []*scenario.Check { return append(SafetyChecks(), VectorChecks()...) }

// SafetyChecks are the black-box scenarios and the payment-only checks.
func SafetyChecks() []*scenario.Check {
	return append([]*scenario.Check{
		{ID: "A2", Title: "N concurrent copies of one request", Level: scenario.Safety, Rule: "SCENARIOS.md A2", Run: runA2},
		{ID: "A5", Title: "mismatch; reordered fields plus an extra field", Level: scenario.Safety, Rule: "SCENARIOS.md A5", Run: runA5},
		{ID: "A6", Title: "one key from two callers (same and different bodies)", Level: scenario.Safety, Rule: "SCENARIOS.md A6; payment check: cross-caller", Needs: scenario.NeedCallers, Run: runA6},
		{ID: "A1", Title: "PSP charges, its reply is lost", Level: scenario.Safety, Rule: "SCENARIOS.md A1; payment check: stable downstream key", Needs: scenario.NeedPSP, Run: runA1},
		{ID: "S-5xx-after-charge", Title: "PSP charges, then answers 500", Level: scenario.Safety, Rule: "payment check: 5xx after the charge", Needs: scenario.NeedPSP, Run: run5xxAfterCharge},
		{ID: "A7", Title: "the client's own reply lost (Toxiproxy)", Level: scenario.Safety, Rule: "SCENARIOS.md A7", Run: runA7},
		{ID: "S-restart", Title: "restart between the first attempt and the retry", Level: scenario.Safety, Rule: "payment check: restart", Needs: scenario.NeedProcs, Run: runRestart},
		{ID: "A3", Title: "owner SIGKILLed while its PSP call is in flight", Level: scenario.Safety, Rule: "SCENARIOS.md A3; payment check: stable key across restart", Needs: scenario.NeedAll(scenario.NeedPSP, scenario.NeedProcs), Run: runA3},
		{ID: "A4", Title: "owner frozen (SIGSTOP), another instance takes over", Level: scenario.Safety, Rule: "SCENARIOS.md A4; payment check: takeover", Needs: scenario.NeedAll(scenario.NeedPSP, scenario.NeedProcs, scenario.NeedPause, scenario.NeedReplicas), Run: runA4},
		{ID: "S-replicas", Title: "duplicates to two instances at once", Level: scenario.Safety, Rule: "payment check: replicas", Needs: scenario.NeedReplicas, Run: runReplicas},
		B5Check(),
		DepsCheck(),
		MultiStepCheck(),
		CaptureCheck(),
	}, append(append(WebhookChecks(), QueueChecks()...),
		// B4 last: it may advance the target's clocks by the whole horizon.
		&scenario.Check{ID: "B4", Title: "retry at the retry horizon; key window against the horizon", Level: scenario.Safety, Rule: "SCENARIOS.md B4; payment check: key lifetime", Needs: needHorizon, Run: runB4})...)
}

// WebhookChecks send the service's webhook handler the events of its own
// payments as a PSP really delivers them; each is judged from the credits
// the service records (hooks.go, credits.go).
func WebhookChecks() []*scenario.Check {
	const rule = "SCENARIOS.md W; one credit per payment"
	return []*scenario.Check{
		{ID: "W-dup", Title: "an event delivered again at once, and again much later", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWDup},
		{ID: "W-concurrent", Title: "copies of an event delivered at once (to every instance)", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWConcurrent},
		{ID: "W-lost-ack", Title: "the handler's 2xx lost on the way back; the PSP redelivers", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWLostAck},
		{ID: "W-kill", Title: "the handler killed right after its ack, and after an answer the PSP never got", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedAll(scenario.NeedHooks, scenario.NeedHookProc), Run: runWKill},
		{ID: "W-order", Title: "a payment's events (and its refund's) last-raised first; success again after", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWOrder},
		{ID: "W-early", Title: "the webhook before the create's own answer", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWEarly},
		{ID: "W-forged", Title: "forged, unsigned, stale and replayed events", Level: scenario.Safety, Rule: rule, Needs: scenario.NeedHooks, Run: runWForged},
	}
}

func needHorizon(e *scenario.Env) string {
	if h := e.Cfg.RetryHorizonD(); !e.CanWait(h) {
		return fmt.Sprintf("retry_horizon %s is longer than --max-wait %s (set a short horizon for a test deployment)", h, e.MaxWait)
	}
	return ""
}

const draft = "draft-ietf-httpapi-idempotency-key-header"

// VectorChecks are the protocol vectors public conformance suites check
// (the protocol vectors), judged against the configured profile.
func VectorChecks() []*scenario.Check {
	return []*scenario.Check{
		{ID: "P-once", Title: "POST executes once", Level: scenario.Protocol, Rule: draft + " §2", Run: vOnce},
		{ID: "P-replay", Title: "a retry replays byte-identical status and body", Level: scenario.Protocol, Rule: draft + " §2.6", Run: vReplay},
		{ID: "P-mismatch", Title: "mismatch rejected (profile status)", Level: scenario.Protocol, Rule: draft + " §2.7 / profile mismatch_status", Run: vMismatch},
		{ID: "P-mismatch-no-poison", Title: "a mismatch does not poison the key", Level: scenario.Protocol, Rule: draft + " §2.7", Run: vNoPoison},
		{ID: "P-conflict", Title: "a concurrent duplicate gets the in-progress status", Level: scenario.Protocol, Rule: draft + " §2.7 / profile in_progress_status", Run: vConflict},
		{ID: "P-retry-after", Title: "Retry-After on the in-progress answer, per profile", Level: scenario.Protocol, Rule: "profile retry_after", Needs: needRetryAfter, Run: vRetryAfter},
		{ID: "P-missing-key", Title: "a missing key gets 400", Level: scenario.Protocol, Rule: draft + " §2.7 / profile missing_key_status", Run: vMissingKey},
		{ID: "P-empty-key", Title: "an empty key is rejected", Level: scenario.Protocol, Rule: draft + " §2.1", Run: vEmptyKey},
		{ID: "P-long-key", Title: "an over-long key is rejected", Level: scenario.Protocol, Rule: "profile max_key_length", Run: vLongKey},
		{ID: "P-quoted-key", Title: "a quoted Structured-Field key is the bare key", Level: scenario.Protocol, Rule: draft + " §2.1 (RFC 8941 sf-string)", Needs: needQuoted, Run: vQuoted},
		{ID: "P-header-case", Title: "the key header name is case-insensitive", Level: scenario.Protocol, Rule: "RFC 9110 §5.1", Needs: needHeaderKey, Run: vHeaderCase},
		{ID: "P-get-ignores-key", Title: "GET ignores the key", Level: scenario.Protocol, Rule: draft + " §1 (idempotent methods)", Run: vGet},
		{ID: "P-two-keys", Title: "two keys on the same body execute twice", Level: scenario.Protocol, Rule: draft + " §2.2 (key identifies the request)", Run: vTwoKeys},
		{ID: "P-replay-header", Title: "the replay header is on replays only", Level: scenario.Protocol, Rule: "profile replay_header", Needs: needReplayHeader, Run: vReplayHeader},
		{ID: "P-4xx-replayed", Title: "a 4xx is replayed", Level: scenario.Protocol, Rule: draft + " §2.6", Run: v4xx},
		{ID: "P-5xx-stored", Title: "5xx stored or not, per profile", Level: scenario.Protocol, Rule: "profile stores_5xx", Needs: need5xx, Run: v5xx},
		{ID: "P-problem-json", Title: "error bodies are application/problem+json with a code", Level: scenario.Protocol, Rule: draft + " §2.7 (RFC 9457)", Needs: needProblem, Run: vProblem},
		{ID: "P-expiry", Title: "a retry after the documented key window is answered", Level: scenario.Protocol, Rule: draft + " §2.5 expiry", Needs: needWindow, Run: vExpiry},
	}
}

func needRetryAfter(e *scenario.Env) string {
	if e.Cfg.Proto().RetryAfter == "" {
		return "profile leaves Retry-After open"
	}
	return ""
}

func needQuoted(e *scenario.Env) string {
	if e.Cfg.Create.Key.Header == "" {
		return "the key is a body field"
	}
	if !e.Cfg.Proto().QuotedKeySame {
		return "profile does not treat \"K\" as K"
	}
	return ""
}

func needHeaderKey(e *scenario.Env) string {
	if e.Cfg.Create.Key.Header == "" {
		return "the key is a body field"
	}
	return ""
}

func needReplayHeader(e *scenario.Env) string {
	if e.Cfg.Proto().ReplayHeader == "" {
		return "profile names no replay header"
	}
	return ""
}

func need5xx(e *scenario.Env) string {
	if e.Cfg.Proto().Stores5xx == "" {
		return "profile leaves 5xx storage open"
	}
	return scenario.NeedPSP(e)
}

func needProblem(e *scenario.Env) string {
	if !e.Cfg.Proto().ProblemJSON {
		return "profile does not require problem+json"
	}
	return ""
}

func needWindow(e *scenario.Env) string {
	w := e.Cfg.KeyWindowD()
	if w == 0 {
		return "no key_window configured"
	}
	if !e.CanWait(w) {
		return fmt.Sprintf("key_window %s is longer than --max-wait %s", w, e.MaxWait)
	}
	return ""
}
