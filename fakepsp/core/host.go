package core

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Host is what the facade (package fakepsp) lends a dialect's API: the
// parts every PSP shares, so the dialect's folder holds only its routes,
// its objects and its rendering. The dialect keeps its own records (its
// accounts and their objects) under Ops().Lock, the lock the money moves
// under, so a record and the money it shows change at the same moment.
type Host interface {
	// Ops are the payment operations over the PSP's lock, clock, faults and
	// ground truth; their Ctx ends when the PSP closes.
	Ops() Ops

	// Enter counts a request in (false once the PSP is closing); Leave
	// counts it out. Close waits for every request, and for every worker
	// a request started.
	Enter() bool
	Leave()
	// Wait blocks while the PSP is paused; false when ctx ended or the
	// PSP closed meanwhile, and the request gets no answer.
	Wait(ctx context.Context) bool
	// Allow takes a token of the rate limits of (account, endpoint).
	Allow(account, endpoint string) bool
	// KeyWindow is how long an idempotency key's saved result is kept.
	KeyWindow() time.Duration
	// LogCall logs one answered (or dropped) API call.
	LogCall(Call)

	// SearchDelay is how long version i of object id takes to reach search
	// (zero: search reads its own writes).
	SearchDelay(id string, i int) time.Duration

	// StartWorker starts the delivery engine of one webhook endpoint, which
	// sends render(ev) signed with the PSP's webhook secret as the dialect's
	// WebhookWire signs; it runs until the PSP closes or it is stopped.
	// A render error (the event's JSON could not be read back) fails that
	// attempt, which the schedule retries; no other body is ever sent.
	StartWorker(endpointID, url string, render func(Event) ([]byte, error)) *Worker
	// Dispatch hands ev to the workers of the endpoints that want it,
	// unless a harness holds it.
	Dispatch(ev Event, to []*Worker)
	// WebhookSecret signs every delivery.
	WebhookSecret() string
}

// Server is a dialect's API running over a Host: what the facade asks of
// it beyond serving requests.
type Server interface {
	// Routes mounts the dialect's API; the facade mounts the control API.
	Routes(mux *http.ServeMux)
	// AddAccount makes an account for the API key key, unless it exists.
	AddAccount(key string)
	// HasAccount says whether key is an account's API key.
	HasAccount(key string) bool
	// AddEndpoint registers a webhook receiver at url for the account of key
	// (no events: every event), as the dialect's API would; its id.
	AddEndpoint(key, url string, events ...string) (string, error)
	// Event is one event the PSP raised, by id.
	Event(id string) (EventInfo, bool)
	// Describe says what a raised event (as the delivery engine holds it)
	// is about.
	Describe(Event) EventInfo
	// EventsAbout lists the events raised about one payment, in order.
	EventsAbout(payment string) []EventInfo
	// PaymentOfCharge names the payment a charge id belongs to ("" if none).
	PaymentOfCharge(chargeID string) string
	// Workers are the delivery workers of every endpoint of every account.
	Workers() []*Worker
	// Info is the dialect's part of GET /_psp/info.
	Info() map[string]any
}

// EventInfo is one raised event as a harness sees it: what it is about and
// the exact bytes every delivery of it sends.
type EventInfo struct {
	ID      string
	Type    string
	Payment string // the payment the event is about, "" if none
	Amount  int64  // that payment's amount when the event was raised
	Raw     []byte
	// Err says why Raw could not be read back from the PSP's store on
	// disk (Raw is then nil): nothing may send it.
	Err error
}

// CheckEndpointURL accepts an absolute http(s) URL, where a webhook can go.
func CheckEndpointURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("fakepsp: invalid webhook URL %q: want http(s)://host/path", raw)
	}
	return nil
}
