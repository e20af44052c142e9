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
	// waits out a key window. What it sees is the same guard failing on the
	// lease: an expired IN_PROGRESS record read as live is never taken over,
	// so after the owner dies inside its charge every retry is answered
	// in_progress (failed-but-charged: the client's last word is not the
	// charge).
	string(mutant.ReadPathTrustsPresence): {checker.KindFailedButCharged},
	string(mutant.StreamSeenExternal):     {checker.KindSinkDivergence},
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
}

// chaosMay is, for a switch, the kinds its bug also shows in a chaos history
// when the schedule drew what makes them visible, each for the reason given;
// a run shows every kind of chaosKinds, and nothing outside the two.
var chaosMay = map[string][]string{
	// When the key's owner drew RESOLVE before its create, its record is
	// VOID, and the other caller's create under the unscoped key is answered
	// with that void (A6's own kind: one caller answered with the other's
	// record).
	//
	// And when the other caller's RESOLVE under that key was called before
	// the owner's create and answered with the owner's payment, the payment
	// is linked to the resolving intent (the first answer naming it owns
	// it), so the credit the worker records by payment goes to that intent,
	// and the owner's intent, its charge named in the PSP's metadata, is
	// charged and never credited: lost-effect (kill matrix, seed 23: u1's
	// resolve 25 ms before u3's create, both told pay_7c76...).
	string(mutant.KeyNotScoped): {checker.KindInconsistentAnswer, checker.KindLostEffect},
	// A read-only RESOLVE answers void but leaves the key free, so a create
	// called after it claims the key and charges (effect-after-void); when
	// that create's charge is slow its caller's retries are told
	// in_progress, an answer a void intent never gives (the bench's kill
	// matrix, seed 898264932376097557).
	string(mutant.ResolveReadOnly): {checker.KindInconsistentAnswer},
	// A RESOLVE that voids the key apart from the create's claim lets the
	// create charge after the void; when that create's own client is last
	// answered with the void (a 409 void after its 502), the charge stands
	// and the client was told it did not happen: the same intent's
	// effect-after-void is also its failed-but-charged (kill matrix, seed 13).
	string(mutant.NonAtomicResolve): {checker.KindFailedButCharged},
	// Each blind move of a webhook delivery is a new event: with three or
	// more copies of the payment's event (psp-webhook-duplicates), the
	// phone gets a third alert for the one payment, beyond E1's one
	// unavoidable repeat.
	string(mutant.BlindWebhookUpdate): {checker.KindNotificationStacked},
	// With the lease never taken over only the resolver can settle the
	// payment; where it has not credited it by the recount (measured around
	// the failover) the same intents show lost-effect.
	string(mutant.ReadPathTrustsPresence): {checker.KindLostEffect},
}

// ChaosMay is the kinds a switch's bug may also show under chaos
// (chaosMay).
func ChaosMay(sw string) []string { return chaosMay[sw] }

// chaosRefused are the switches --chaos refuses, with why: no chaos history
// shows them, because a second guard masks their bug or because their window
// is one a chaos run does not make (a new job version, a reminder from
// another system), so a chaos pass would pass them silently. Each names the
// spec that catches it.
var chaosRefused = map[string]string{
	string(mutant.CheckThenInsert): "check-then-insert is masked in the history (the derived PSP key and the ledger's compare-and-set keep one charge and one payment); " +
		"only the PSP's own log shows it (two calls under one key for one intent while a copy was in flight), which A2 judges and chaos does not: run --only A2",
	string(mutant.CompleteUnconditional): "complete-unconditional is masked: answers are rendered from the ledger row, so the zombie's overwrite of the key record carries the same answer; " +
		"only the key record shows it, which A4's spec reads and chaos does not: suites/reference A4",
	string(mutant.NoDeadline): "no-deadline is masked under chaos: the late original it would let run meets its own retry's claim, or RESOLVE's void of its key, and charges nothing; " +
		"B1's spec holds it past the deadline with RESOLVE read-only: suites/reference B1",
	string(mutant.ReadUncommitted): "read-uncommitted is masked by the worker's inbox, which drops the committed copy of an event the aborted one already credited; " +
		"run it with worker-no-inbox (D3's caught spec, suites/delivery)",
	string(mutant.StreamNoFullFlush): "stream-no-full-flush is out of chaos's reach: the flush matters only when a restored job writes otherwise than the run the restore erased " +
		"(a fixed version restored from a checkpoint its predecessor wrote past); chaos restarts the same version, whose replay rewrites every key the erased run wrote: suites/stream F1",
	string(mutant.StreamTagLastCompleted): "stream-tag-last-completed is out of chaos's reach: a write tagged with the last completion escapes the flush only when the restored job writes otherwise than the erased run " +
		"(a fixed version restored from a checkpoint whose notice was late); chaos restarts the same version: suites/stream F2",
	string(mutant.StreamNoWatermarkFloor): "stream-no-watermark-floor is out of chaos's reach: the floor matters only for a copy already late before the crash, 7200 story seconds of event time behind the watermark, " +
		"and a chaos run neither lasts that long nor moves the change source's clock: suites/stream F4",
	string(mutant.NoDedupKey): "no-dedup-key is out of chaos's reach: the dedup window guards reminders, which another system (billing) writes onto the topic, and chaos sends payments only, " +
		"whose notifications the inbox and the notification record keep single before any dedup; E3's spec sends the reminders: suites/delivery E3",
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
