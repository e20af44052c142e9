package checker

// Every violation kind idemcheck names, in one list. docs/HISTORY.md gives
// each history kind a checked example; docs/SCENARIOS.md#run-kinds explains
// the kinds only `idemcheck run` names.
const (
	KindDoubleCharge        = "double-charge"
	KindDoubleCredit        = "double-credit"
	KindLostEffect          = "lost-effect"
	KindInconsistentAnswer  = "inconsistent-answer"
	KindMismatchAccepted    = "mismatch-accepted"
	KindFalseMismatch       = "false-mismatch"
	KindEffectAfterVoid     = "effect-after-void"
	KindNotificationStacked = "notification-stacked"
	// KindSinkDivergence: a stream sink total differs from the ledger (sink.go).
	KindSinkDivergence = "sink-divergence"
	// KindFailedButCharged: charged, not refunded, and the client's final
	// answer is not succeeded (converge.go).
	KindFailedButCharged = "failed-but-charged"
	// KindWrongAmount: a charge whose amount or currency differs from the
	// request that claimed the intent.
	KindWrongAmount = "wrong-amount"
	// KindDoubleRefund: the refunds of one charge exceed it, or one refund
	// request was carried out twice.
	KindDoubleRefund = "double-refund"
	// KindStaleWriteApplied: an item's value read at quiescence is not the
	// value of its device's latest acknowledged write (an older write was
	// applied over it, or the newer one was dropped).
	KindStaleWriteApplied = "stale-write-applied"
	// KindEffectResurrected: a message is back in a folder the user moved it
	// out of, or anywhere after the user deleted it.
	KindEffectResurrected = "effect-resurrected"
)

// The kinds only `idemcheck run` names: each is judged from ground truth a
// history file does not carry (the PSP front's log, the service's own
// ledger, the handler's answers to forged deliveries).
const (
	// KindDoubleExecution: two copies of one request both executed as far as
	// the PSP (their PSP requests were open at the same moment) although the
	// PSP kept one charge: its idempotency absorbed what the service's own
	// guard let through, and any effect the PSP does not guard (a ledger row
	// written before the call, an email, a PSP key derived per execution, a
	// PSP without idempotency) would repeat.
	KindDoubleExecution = "double-execution"
	// KindDoubleAuthorization: two authorizations for one payment, from the
	// authorizations the PSP front saw. There is no double-capture and no
	// over-refund kind: fakepsp, as Stripe, refuses a second capture of one
	// authorization and a refund beyond what is left of the charge; a capture
	// "retried" as a new charge is a double-charge.
	KindDoubleAuthorization = "double-authorization"
	// KindForgedEvent: the handler accepted (2xx) a delivery whose signature
	// was wrong, missing, or outside the tolerance: anyone who can reach the
	// endpoint could credit themselves, or replay an old event.
	KindForgedEvent = "forged-event-accepted"
	// KindLedgerMissing: the PSP charged and the service's own ledger has no
	// row for it.
	KindLedgerMissing = "ledger-missing"
	// KindUnattributed: a PSP charge that no order idemcheck sent explains.
	KindUnattributed = "unattributed-charge"
	// KindDoubleBooking: the service's own books (its ledger, or the effect
	// counter the config names) count more charges for an order than its
	// intents while the PSP's log has no more charges than that: the
	// service recorded one payment twice; the buyer's card was not charged
	// twice. A double-charge is named only from the PSP's log.
	KindDoubleBooking = "double-booking"
	// KindFailedButRefunded: the PSP carried out a refund, and with the key
	// that did it the client was told the refund did not happen: money went
	// back to the buyer while the merchant was told it did not (the buyer
	// was not charged, which failed-but-charged would say).
	KindFailedButRefunded = "failed-but-refunded"
)

// Kinds lists every kind Check finds in a history, in report order.
var Kinds = []string{
	KindDoubleCharge, KindDoubleCredit, KindLostEffect, KindInconsistentAnswer,
	KindMismatchAccepted, KindFalseMismatch, KindEffectAfterVoid,
	KindNotificationStacked, KindSinkDivergence, KindFailedButCharged,
	KindWrongAmount, KindDoubleRefund, KindStaleWriteApplied, KindEffectResurrected,
}

// RunKinds lists the kinds only `idemcheck run` names, in report order.
var RunKinds = []string{
	KindDoubleExecution, KindDoubleAuthorization, KindForgedEvent, KindLedgerMissing, KindUnattributed,
	KindDoubleBooking, KindFailedButRefunded,
}
