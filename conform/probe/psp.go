package probe

import (
	"context"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// pspUnderProbe is what the probe needs of the fake PSP it starts, whatever
// dialect it speaks: the URL and keys the service is given, the ground
// truth it counts, its faults and call log, and one webhook sent by hand.
// *fakepsp.PSP is one.
type pspUnderProbe interface {
	URL() string
	SecretKey() string
	WebhookSecret() string
	Charges() []history.Op
	Calls() []core.Call
	CallCount() int
	// ReadError is the first read of its logs on disk that failed: what
	// the probe observed from them is then not the whole.
	ReadError() error
	Faults() *core.Faults
	PaymentIntentOfCharge(chargeID string) string
	WebhookEvents(payment string) []fakepsp.WebhookEvent
	Send(ctx context.Context, eventID string, o fakepsp.SendOptions) (core.Delivery, error)
}
