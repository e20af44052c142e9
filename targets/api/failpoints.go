package api

import "github.com/idemcheck/idemcheck/targets/failpoint"

// The API server's failpoints, in the order a charge meets them.
const (
	// BeforeClaim sits between a claim's read and its write; the reference's
	// claim is one atomic script, so only the mutant check-then-insert has a gap.
	BeforeClaim        = "before-claim"
	AfterClaim         = "after-claim"
	AfterPendingInsert = "after-pending-insert"
	BeforePSPCall      = "before-psp-call"
	AfterPSPCall       = "after-psp-call"
	BeforeComplete     = "before-complete"
	// BeforeResolveCommit sits before a resolve's ledger write: the window a
	// late original can race into.
	BeforeResolveCommit = "before-resolve-commit"
	BeforeRefundCall    = "before-refund-call"
)

func init() {
	failpoint.Register(BeforeClaim, AfterClaim, AfterPendingInsert, BeforePSPCall, AfterPSPCall, BeforeComplete,
		BeforeResolveCommit, BeforeRefundCall)
}
