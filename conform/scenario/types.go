// Package scenario is the engine of idemcheck run's checks: the Env a check
// runs against, the T it reports through, the steps checks share (send,
// converge, kill the owner, arm a fault), the webhook and queue drivers, and
// the judge that turns fakepsp's log, the ledger and the history into
// findings. The checks themselves are in conform/checks. Each check yields
// one Result with a verdict at its level and the evidence behind it.
package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Level separates "can it charge twice" from "does it follow the protocol".
type Level string

// The two levels.
const (
	Safety   Level = "safety"
	Protocol Level = "protocol"
)

// Verdict of one check.
type Verdict string

// Verdicts.
const (
	Pass      Verdict = "pass"
	Violation Verdict = "violation" // safety broken
	Deviation Verdict = "deviation" // protocol not followed
	NA        Verdict = "n/a"
	Errored   Verdict = "error" // idemcheck could not run the check
	// Inconclusive: the check ran but what must have happened for it to
	// mean anything did not (no create answered, the fault never fired, the
	// checker could not decide). It fails the run like an error.
	Inconclusive Verdict = "inconclusive"
)

// Finding is one broken rule with its evidence.
type Finding struct {
	Level   Level        `json:"level"`
	Kind    string       `json:"kind"`
	Rule    string       `json:"rule"`
	Message string       `json:"message"`
	Intent  string       `json:"intent,omitempty"`
	Amount  int64        `json:"amount,omitempty"`
	Seqs    []int        `json:"attempts,omitempty"`
	Charges []history.Op `json:"psp_charges,omitempty"`
	// Deliveries are fakepsp's deliveries of the payment's events and
	// Credits the service's credit rows as last read (the webhook checks).
	Deliveries []core.Delivery `json:"webhook_deliveries,omitempty"`
	Credits    []int64         `json:"credits,omitempty"`
	CreditsAt  int64           `json:"credits_read_at,omitempty"`
	// Violation is the checker's own report, when the checker found it.
	Violation *checker.Violation `json:"checker_violation,omitempty"`
}

// Result is one line of the report.
type Result struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Level    Level             `json:"level"`
	Rule     string            `json:"rule"`
	Verdict  Verdict           `json:"verdict"`
	Why      string            `json:"why"`
	Required bool              `json:"required,omitempty"`
	Findings []Finding         `json:"findings,omitempty"`
	Attempts []*driver.Attempt `json:"evidence,omitempty"`
	History  history.History   `json:"-"`
	// Ops are what the report's pictures draw: every client op of the
	// check's intents (those judged by count too) and the PSP's ops.
	Ops history.History `json:"-"`
	// Faults are the run's fault windows by the check's end, for the pictures.
	Faults []checker.FaultWindow `json:"-"`
	// Checker is the checker's result over History, for its pictures.
	Checker *checker.Result `json:"-"`
	Elapsed time.Duration   `json:"elapsed_ns"`
	// BrokerNA: n/a because the consumer's broker cannot do what the check
	// needs; --require-all-safety does not count it (no config could).
	BrokerNA bool `json:"na_for_broker,omitempty"`
	// Precondition is what did not happen when the verdict is inconclusive.
	Precondition string `json:"precondition,omitempty"`
	// Coverage is what a chaos run exercised of what its config allowed.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Check is one scenario, vector or payment-only check.
type Check struct {
	ID    string
	Title string
	// BrokerTitle, on a queue check whose title names what a consumer
	// acknowledges or where records wait, is the title in the run's
	// broker's words (In); Title is Kafka's, as the catalogue and the docs
	// say it. "": Title.
	BrokerTitle func(w broker.Words) string
	Level       Level
	// Rule the check comes from: a SCENARIOS.md row, a draft section, a profile setting.
	Rule string
	// Needs returns why the check does not apply to this target ("" = applies).
	Needs func(e *Env) string
	// Broker is what a queue check needs of the consumer's broker: where
	// the broker lacks some of it, the check is n/a saying what (NeedBroker).
	Broker broker.Cap
	// BrokerOneOf is what a queue check needs one of (Q-poison: ordered
	// partitions, where the poison stops the records behind it, or a
	// dead-letter queue, where the broker moves it aside); a broker with
	// none of it makes the check n/a saying so.
	BrokerOneOf broker.Cap
	// WithoutCreate: the check sends no create request (the Q checks), so it
	// runs on a consumer-only config; every other check is n/a there.
	WithoutCreate bool
	Run           func(ctx context.Context, e *Env, t *T)
}

// T collects what one check found.
type T struct {
	Check       *Check
	Env         *Env
	mu          sync.Mutex
	Findings    []Finding
	Why         string
	na          string
	err         string
	broken      string // the harness left the system broken (Broke)
	Inconc      []string
	counted     []string
	finals      map[string]*driver.Attempt
	first       int   // first attempt seq of this check
	start       int64 // history.Now() when the check began
	Intents     map[string]bool
	History     history.History
	ops         history.History
	countBefore int64
	checkerRes  *checker.Result
	// Coverage, set by a chaos run, goes to the result.
	Coverage *Coverage
	// together is the most PSP requests of one intent the front's gate held
	// at one moment while its copies were in flight (execution.go).
	together int
	// kept are the attempts of a long check's rounds that had a finding,
	// which the driver has forgotten (rounds.go).
	kept []*driver.Attempt
	// keptFaults are those rounds' fault windows, which the Env forgot.
	keptFaults []checker.FaultWindow
}

// Safety records a safety violation of a given kind.
func (t *T) Safety(kind, rule, format string, args ...any) *Finding {
	return t.add(Finding{Level: Safety, Kind: kind, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Deviation records a protocol deviation.
func (t *T) Deviation(rule, format string, args ...any) *Finding {
	return t.add(Finding{Level: Protocol, Kind: "deviation", Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (t *T) add(f Finding) *Finding {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Findings = append(t.Findings, f)
	return &t.Findings[len(t.Findings)-1]
}

// Passf sets the "why" of a passing check.
func (t *T) Passf(format string, args ...any) { t.Why = fmt.Sprintf(format, args...) }

// NotApplicable marks the check n/a with a reason found while running.
func (t *T) NotApplicable(format string, args ...any) { t.na = fmt.Sprintf(format, args...) }

// Errorf marks the check as not run to completion by idemcheck's fault.
func (t *T) Errorf(format string, args ...any) { t.err = fmt.Sprintf(format, args...) }

// Broke marks the check errored because a fault of the harness left the
// system broken (a failover that killed one Region and never brought the
// other up): what went wrong after it is the harness's doing, so no finding
// may stand as the service's violation. It overrides every other verdict.
func (t *T) Broke(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.broken == "" {
		t.broken = fmt.Sprintf(format, args...)
	}
}

// Inconclusive records a precondition of the check that did not hold, with
// its likely cause in the user's words; the check cannot pass.
func (t *T) Inconclusive(precondition, cause string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	msg := precondition
	if cause != "" {
		msg += ": " + fmt.Sprintf(cause, args...)
	}
	for _, m := range t.Inconc {
		if m == msg {
			return
		}
	}
	t.Inconc = append(t.Inconc, msg)
}

// Counted adds what the judge counted to the pass line.
func (t *T) Counted(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counted = append(t.counted, fmt.Sprintf(format, args...))
}

// Failed reports whether anything was found so far.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.Findings) > 0
}
