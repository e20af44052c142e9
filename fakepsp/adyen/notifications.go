package adyen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Notification is one standard-webhook request: a batch of items. Adyen
// sends "live" as a string.
type Notification struct {
	Live  string         `json:"live"`
	Items []ItemEnvelope `json:"notificationItems"`
}

// ItemEnvelope wraps each item, as Adyen's JSON does.
type ItemEnvelope struct {
	Item Item `json:"NotificationRequestItem"`
}

// Item is one NotificationRequestItem. Success is the string "true" or
// "false", as Adyen sends it (and signs it).
type Item struct {
	AdditionalData      map[string]string `json:"additionalData,omitempty"`
	Amount              Amount            `json:"amount"`
	EventCode           string            `json:"eventCode"`
	EventDate           string            `json:"eventDate"`
	MerchantAccountCode string            `json:"merchantAccountCode"`
	MerchantReference   string            `json:"merchantReference"`
	OriginalReference   string            `json:"originalReference,omitempty"`
	PaymentMethod       string            `json:"paymentMethod,omitempty"`
	PSPReference        string            `json:"pspReference"`
	Operations          []string          `json:"operations,omitempty"`
	Reason              string            `json:"reason,omitempty"`
	Success             string            `json:"success"`
}

// The event codes this dialect raises.
const (
	EventAuthorisation  = "AUTHORISATION"
	EventCapture        = "CAPTURE"
	EventCancellation   = "CANCELLATION"
	EventRefund         = "REFUND"
	EventCancelOrRefund = "CANCEL_OR_REFUND"
)

// DedupKey is what Adyen tells a receiver to deduplicate an item on: its
// event code and pspReference. An AUTHORISATION that failed and a later
// one that succeeded share it, so the success flag goes with it.
func (it Item) DedupKey() string { return it.EventCode + ":" + it.PSPReference + ":" + it.Success }

// Batch is a notification of items, as Adyen's test platform sends it.
func Batch(items ...Item) Notification {
	n := Notification{Live: "false"}
	for _, it := range items {
		n.Items = append(n.Items, ItemEnvelope{Item: it})
	}
	return n
}

// EventDate is t in the form Adyen's items carry.
func EventDate(t time.Time) string { return t.Format("2006-01-02T15:04:05-07:00") }

// Accepted is a delivery Adyen counts as received: any 2xx. Adyen's
// older integrations had to answer "[accepted]"; its current pages count
// any successful status, and fakepsp is no kinder than that.
func Accepted(a core.Answer) bool { return a.Status >= 200 && a.Status < 300 }

// Schedule is Adyen's documented retry table: three retries 9 s apart,
// then from the retry queue 2 min, 5 min, 10 min, 15 min, 30 min, 1 h,
// 2 h, 4 h and 8 h (repeating) for up to 30 days. A run scales it with its
// clock knob (Scaled).
func Schedule() core.Schedule {
	steps := []time.Duration{9 * time.Second, 9 * time.Second, 9 * time.Second,
		2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour}
	return core.Schedule{Base: steps[0], Steps: steps, Horizon: 30 * 24 * time.Hour, Timeout: 10 * time.Second}
}

// Scaled is s with every wait multiplied by f (0 < f): the run's clock knob.
func Scaled(s core.Schedule, f float64) core.Schedule {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f) }
	out := core.Schedule{Base: scale(s.Base), Factor: s.Factor, Horizon: scale(s.Horizon), Timeout: s.Timeout}
	for _, st := range s.Steps {
		out.Steps = append(out.Steps, scale(st))
	}
	return out
}

type webhookWire struct{}

// NewSecret is a fresh HMAC key as Adyen's Customer Area shows one: 32
// bytes in upper-case hex.
func (webhookWire) NewSecret() string { return NewHMACKey() }

// Request signs every item of body (a Notification) with the hex key
// secret into its additionalData.hmacSignature and posts the batch as
// Adyen does; an empty secret sends the items unsigned. at is unused:
// Adyen's signature carries no time.
func (webhookWire) Request(ctx context.Context, url string, body []byte, secret string, _ time.Time) (*http.Request, error) {
	var n Notification
	if err := json.Unmarshal(body, &n); err != nil {
		return nil, fmt.Errorf("adyen: a notification to send is not a batch: %w", err)
	}
	if secret != "" {
		for i := range n.Items {
			if err := SignItem(&n.Items[i].Item, secret); err != nil {
				return nil, err
			}
		}
	}
	raw, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Adyen HttpClient 1.0")
	return req, nil
}

func (webhookWire) Accepted(a core.Answer) bool { return Accepted(a) }

// Schedule is the retry table a PSP speaking Adyen uses unless configured.
func (webhookWire) Schedule() core.Schedule { return Schedule() }
