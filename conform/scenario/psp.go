package scenario

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// PSP is the ground truth of the fakepsp a run charges through, and the
// URL its faults are armed at.
type PSP interface {
	URL() string
	Charges() []history.Op
	Refunds() []history.Op
}

// TruthReader is a PSP whose reads can fail (one reached over the network):
// ReadError returns, and forgets, the first failure since it was last asked.
// A check during which one failed judged a ground truth it did not have.
type TruthReader interface {
	ReadError() error
}

// The local PSP keeps its ground truth on disk too: were it ever to stop
// being a TruthReader, takeReadError would silently stop asking it, and a
// check would judge charges it failed to read. This fails the build instead.
var _ TruthReader = (*fakepsp.PSP)(nil)

func takeReadError(e *Env) error {
	var errs []error
	if tr, ok := e.PSP.(TruthReader); ok {
		if err := tr.ReadError(); err != nil {
			errs = append(errs, fmt.Errorf("fakepsp's ground truth: %w", err))
		}
	}
	if e.Front != nil {
		// The front's exchanges are what attribution reads: one that came
		// back without its bodies could hide whose charge a charge is.
		if err := e.Front.ReadError(); err != nil {
			errs = append(errs, fmt.Errorf("the recording front's exchanges: %w", err))
		}
	}
	if err := e.takeOrdersReadError(); err != nil {
		// A lost order makes its charges look unattributed, or hides a
		// double charge.
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// LocalPSP is a fake PSP idemcheck started in this process, whatever
// dialect it speaks: its ground truth and URL (PSP), the keys a target is
// given, its faults, and the webhook source the W checks drive.
// *fakepsp.PSP is one; the engine names no more of it than this.
type LocalPSP interface {
	PSP
	SecretKey() string
	WebhookSecret() string
	Faults() *core.Faults
	WebhookSource
}

// WebhookSource is the side of a fake PSP that raises events and delivers
// them: where a check registers the service's endpoint, holds a payment's
// events, sends extra copies (duplicates, forgeries) and reads the delivery
// log, the one record of what reached the handler.
type WebhookSource interface {
	RegisterWebhook(url string, events ...string) (string, error)
	// WebhookEvents are the events raised about one payment, in order;
	// PaymentIntentOfCharge names the payment of a charge id.
	WebhookEvents(payment string) []fakepsp.WebhookEvent
	PaymentIntentOfCharge(chargeID string) string
	HoldWebhooks(match func(fakepsp.WebhookEvent) bool) *fakepsp.Hold
	Send(ctx context.Context, eventID string, o fakepsp.SendOptions) (core.Delivery, error)
	Deliveries() []core.Delivery
	DeliveryAdded() <-chan struct{}
	PendingDeliveries(ids []string) int
	WebhookFreedomCounts() core.FreedomCounts
}
