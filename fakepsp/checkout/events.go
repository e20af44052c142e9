package checkout

import (
	"encoding/json"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// The event types this dialect raises.
const (
	EventApproved = "payment_approved"
	EventCaptured = "payment_captured"
	EventRefunded = "payment_refunded"
	EventVoided   = "payment_voided"
)

// Event is one webhook event, rendered once when raised.
type Event struct {
	ID, Type, Payment string
	Amount            int64 // the payment's amount
	Target            core.Target
	Raw               []byte
}

func (e *Event) EventID() string          { return e.ID }
func (e *Event) EventType() string        { return e.Type }
func (e *Event) FaultTarget() core.Target { return e.Target }

// newEvent renders an event about payment p, its data the action's.
func newEvent(typ string, p *Payment, actionID string, amount int64, t core.Target, now time.Time) *Event {
	id := newID("evt")
	raw, _ := json.Marshal(map[string]any{
		"id": id, "type": typ, "version": "1.0.0", "created_on": now.UTC().Format(time.RFC3339),
		"data": map[string]any{"id": p.ID, "action_id": actionID, "amount": amount, "currency": p.Currency,
			"reference": p.Reference, "metadata": p.Metadata.Map(), "response_code": "10000", "response_summary": "Approved"},
	})
	return &Event{ID: id, Type: typ, Payment: p.ID, Amount: p.Amount, Target: t, Raw: raw}
}
