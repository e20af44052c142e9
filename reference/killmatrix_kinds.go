package reference

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// chaosKinds is, for every switch `run --reference --chaos` accepts, the
// exact set of violation kinds its bug shows in a chaos history. It follows
// the catalogue's CaughtAs (targets/mutant), except where chaos sees the same
// bug through another rule of the history; each such line says why.
var chaosKinds = map[string][]string{
	string(mutant.ResolverFreshPSPKey): {checker.KindDoubleCharge},
	// The payment behind the saved 500 stays UNKNOWN in the ledger, so no
	// success event reaches the outbox and the merchant is never credited:
	// lost-effect is the same unsettled payment seen from the credit side.
	string(mutant.ResolverReplayOnly):  {checker.KindFailedButCharged, checker.KindLostEffect},
	string(mutant.TakeoverNewPSPKey):   {checker.KindDoubleCharge},
	string(mutant.FingerprintRawBytes): {checker.KindFalseMismatch},
	string(mutant.NoFingerprintCheck):  {checker.KindMismatchAccepted},
	// A6's catalogue kind is the answer to the second caller; in chaos the two
	// callers' bodies differ (each pays its own merchant), so the unscoped key
	// refuses the second caller's own first request as a reuse: a mismatch
	// for a request that reused nothing.
	string(mutant.KeyNotScoped):       {checker.KindFalseMismatch},
	string(mutant.ResolveReadOnly):    {checker.KindEffectAfterVoid},
	string(mutant.NonAtomicResolve):   {checker.KindEffectAfterVoid},
	string(mutant.NoDurableGuard):     {checker.KindDoubleCharge},
	string(mutant.FreshRefundKey):     {checker.KindDoubleRefund},
	string(mutant.BlindWebhookUpdate): {checker.KindDoubleCredit},
	// B5's catalogue kind is the expired record's stale answer; chaos never
	// waits out a key window, and what it sees is the record read as present
	// while the payment's truth moved on: the client's last word is not the
	// charge the PSP made.
	string(mutant.ReadPathTrustsPresence): {checker.KindFailedButCharged},
	string(mutant.StreamNoFullFlush):      {checker.KindSinkDivergence},
	string(mutant.StreamTagLastCompleted): {checker.KindSinkDivergence},
	string(mutant.StreamSeenExternal):     {checker.KindSinkDivergence},
	string(mutant.StreamNoWatermarkFloor): {checker.KindSinkDivergence},
	string(mutant.RegionAttemptKey):       {checker.KindDoubleCharge},
	string(mutant.RandomEventID):          {checker.KindDoubleCredit},
	string(mutant.RelayDeleteFirst):       {checker.KindLostEffect},

	// The worker's switches (SCENARIOS.md D and E):
	// without the inbox a redelivered event credits again; the notification
	// guards show on the phone's screen.
	string(mutant.WorkerNoInbox): {checker.KindDoubleCredit},
	string(mutant.NoNotifRecord): {checker.KindNotificationStacked},
	// E2: a redelivery only acknowledges, so the notification the crash
	// left PENDING is never sent: credited, never notified.
	string(mutant.AckOnlyOnRedelivery): {checker.KindLostEffect},
	string(mutant.NoDedupKey):          {checker.KindNotificationStacked},
}

// chaosRefused are the switches --chaos refuses, with why: no black-box
// history shows them, and the chaos run does not yet judge fakepsp's call
// log for two executions under one key (the double-execution kind of A2 and
// S-replicas), so a chaos pass would pass them silently.
var chaosRefused = map[string]string{
	string(mutant.CheckThenInsert): "check-then-insert is masked in the history (the derived PSP key and the ledger's compare-and-set keep one charge and one payment); " +
		"only the PSP's own log shows it (two calls under one key for one intent while a copy was in flight), which A2 judges and chaos does not: run --only A2",
	string(mutant.CompleteUnconditional): "complete-unconditional is masked: answers are rendered from the ledger row, so the zombie's overwrite of the key record carries the same answer; " +
		"only the key record shows it, which A4's spec reads and chaos does not: suites/reference A4",
	string(mutant.NoDeadline): "no-deadline is masked under chaos: the late original it would let run meets its own retry's claim, or RESOLVE's void of its key, and charges nothing; " +
		"B1's spec holds it past the deadline with RESOLVE read-only: suites/reference B1",
	string(mutant.ReadUncommitted): "read-uncommitted is masked by the worker's inbox, which drops the committed copy of an event the aborted one already credited; " +
		"run it with worker-no-inbox (D3's caught spec, suites/delivery)",
	string(mutant.NoReplaceID): "no-replace-id is masked by the notification record, which sends no repeat for a replace id to replace; " +
		"run it with no-notif-record (E1's caught spec (a), suites/delivery)",
}

// chaosRefuses says why --chaos will not run with set, or "".
func chaosRefuses(set mutant.Set) string {
	var why []string
	for s := range set {
		if r, ok := chaosRefused[string(s)]; ok {
			why = append(why, fmt.Sprintf("switch %q: %s", s, r))
		}
	}
	sort.Strings(why)
	return strings.Join(why, "; ")
}

// ChaosSwitches lists every switch `run --reference --chaos` accepts, in the
// catalogue's order, each with its chaos kinds; and the
// switches it refuses, with why.
func ChaosSwitches() (accepted []string, refused map[string]string) {
	refused = map[string]string{}
	for _, e := range mutant.Catalogue {
		s := string(e.Switch)
		if r, ok := chaosRefused[s]; ok {
			refused[s] = r
			continue
		}
		if err := runsEveryTierOf(mutant.Set{e.Switch: true}, true, true); err != nil {
			refused[s] = err.Error()
			continue
		}
		accepted = append(accepted, s)
	}
	return accepted, refused
}

// ChaosKinds is the exact kind set a switch's bug shows under chaos (nil for
// no switch: no finding at all).
func ChaosKinds(sw string) []string { return chaosKinds[sw] }
