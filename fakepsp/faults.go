package fakepsp

import "github.com/idemcheck/idemcheck/fakepsp/core"

// The fault API lives in core (it is the same for every dialect); these
// names keep package fakepsp's face as it was.
type (
	FaultKind = core.FaultKind
	Match     = core.Match
	FaultSpec = core.FaultSpec
	Fault     = core.Fault
	Faults    = core.Faults
	FaultInfo = core.FaultInfo
)

// The fault kinds (core/faults.go says what each does).
var (
	LoseReply            = core.LoseReply
	HoldReply            = core.HoldReply
	DelayBeforeCharge    = core.DelayBeforeCharge
	DelayAfterCharge     = core.DelayAfterCharge
	Error500BeforeCharge = core.Error500BeforeCharge
	Error500AfterCharge  = core.Error500AfterCharge
	RateLimit            = core.RateLimit
	GateBeforeCharge     = core.GateBeforeCharge
	SearchLag            = core.SearchLag
	WebhookDuplicates    = core.WebhookDuplicates
	WebhookOutOfOrder    = core.WebhookOutOfOrder
)

// Kinds lists every fault kind, sorted.
func Kinds() []FaultKind { return core.Kinds() }
