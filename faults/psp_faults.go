package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The PSP family: one value per fakepsp fault kind, armed through fakepsp's
// control API (POST /_psp/faults), so a fakepsp in another process works the
// same. A test keeps this list equal to fakepsp.Kinds().
var pspFaults = []Fault{
	PSPReplyLost, PSPHoldReply, PSPSlow, PSPDelayAfterCharge, PSP500BeforeCharge, PSP500AfterCharge,
	PSPRateLimit, PSPGate, PSPSearchLag, PSPWebhookDuplicates, PSPWebhookOutOfOrder,
}

// The PSP faults. Kind is fakepsp's name for it.
var (
	PSPReplyLost         = PSPFault{Label: "psp-reply-lost", Kind: "lose_reply"}
	PSPHoldReply         = PSPFault{Label: "psp-reply-held", Kind: "hold_reply"}
	PSPSlow              = PSPFault{Label: "psp-slow", Kind: "delay_before_charge", Delay: 400 * time.Millisecond}
	PSPDelayAfterCharge  = PSPFault{Label: "psp-slow-after-charge", Kind: "delay_after_charge", Delay: 400 * time.Millisecond}
	PSP500BeforeCharge   = PSPFault{Label: "psp-500-before-charge", Kind: "error_500_before_charge", Unsettled: true}
	PSP500AfterCharge    = PSPFault{Label: "psp-500-after-charge", Kind: "error_500_after_charge"}
	PSPRateLimit         = PSPFault{Label: "psp-429", Kind: "rate_limit"}
	PSPGate              = PSPFault{Label: "psp-gate-before-charge", Kind: "gate_before_charge"}
	PSPSearchLag         = PSPFault{Label: "psp-search-lag", Kind: "search_lag", Delay: 2 * time.Second, Search: true}
	PSPWebhookDuplicates = PSPFault{Label: "psp-webhook-duplicates", Kind: "webhook_duplicates", Extra: 2, Webhook: true, EveryEvent: true}
	PSPWebhookOutOfOrder = PSPFault{Label: "psp-webhook-out-of-order", Kind: "webhook_out_of_order", Webhook: true}
)

// PSPFault is a fakepsp fault kind with the parameters it is armed with.
type PSPFault struct {
	Label string
	Kind  string
	Delay time.Duration
	Extra int
	// Webhook faults act on event deliveries, so they need a target fakepsp
	// delivers to; Search acts on searches, which no intent makes on its own.
	Webhook, Search bool
	// Unsettled: the PSP saves a 500 under the key with nothing charged and
	// replays it for the key's whole window, so a target that never guesses
	// leaves the payment unknown: an intent under it cannot converge.
	Unsettled bool
	// EveryEvent fires on every matching event while armed, not on the
	// scope's first: fakepsp counts a webhook fault per event, and the
	// payment's first event (payment_intent.created) is not the one a
	// handler credits on.
	EveryEvent bool
}

func (f PSPFault) Name() string   { return f.Label }
func (f PSPFault) Family() Family { return FamilyPSP }
func (f PSPFault) Applies(sys *System) (bool, string) {
	switch {
	case sys.PSP == "":
		return false, "the target does not use a fakepsp the harness started"
	case f.Webhook && !sys.PSPWebhooks:
		return false, "fakepsp delivers no webhooks to the target"
	case f.Search:
		return false, "a search lag fires only on the target's own PSP searches, which no intent asks for: instead, the fakepsp a run starts makes every search eventually consistent (effects.search_lag)"
	case f.Unsettled && !sys.Unsettled:
		return false, "the saved 500 leaves the payment unknown for the key's window, so no intent under it converges: the named check P-5xx arms it"
	}
	return true, ""
}

func (f PSPFault) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	return f.Arm(ctx, sys.PSP, s)
}

// Arm arms the fault on the fakepsp at pspURL for the requests of s.
func (f PSPFault) Arm(ctx context.Context, pspURL string, s Scope) (*PSPInjection, error) {
	body := map[string]any{"kind": f.Kind}
	if s.Amount != 0 {
		body["amount"] = s.Amount
	}
	if s.PSPKey != "" {
		body["psp_key"] = s.PSPKey
	}
	if s.Op != "" {
		body["op"] = s.Op
	}
	if s.Times != 0 && !f.EveryEvent {
		body["times"] = s.Times
	}
	if f.Delay > 0 {
		body["delay"] = f.Delay.String()
	}
	if f.Extra > 0 {
		body["extra"] = f.Extra
	}
	var info struct {
		ID string `json:"id"`
	}
	if err := pspCall(ctx, http.MethodPost, strings.TrimRight(pspURL, "/")+"/_psp/faults", body, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Label, err)
	}
	return &PSPInjection{Fault: f, url: strings.TrimRight(pspURL, "/") + "/_psp/faults/" + info.ID}, nil
}

// PSPInjection is an armed fakepsp fault.
type PSPInjection struct {
	Fault PSPFault
	url   string
	err   error
}

// InertPSP is an injection of f that was never armed (err says why): it
// never fires, so a check that asserts it fired fails.
func InertPSP(f PSPFault, err error) *PSPInjection { return &PSPInjection{Fault: f, err: err} }

// Err is why an inert injection was never armed; nil for an armed one.
func (i *PSPInjection) Err() error { return i.err }

// Fired asks fakepsp how often the fault fired; an unreadable count is 0,
// which fails a spec that asserts it fired rather than passing it.
func (i *PSPInjection) Fired() int64 {
	n, _ := i.fired(context.Background())
	return n
}

func (i *PSPInjection) fired(ctx context.Context) (int64, error) {
	if i.err != nil {
		return 0, i.err
	}
	var info struct {
		Fired int64 `json:"fired"`
	}
	if err := pspCall(ctx, http.MethodGet, i.url, nil, &info); err != nil {
		return 0, err
	}
	return info.Fired, nil
}

// Undo disarms the fault and releases what it holds.
func (i *PSPInjection) Undo() error {
	if i.err != nil {
		return nil
	}
	return pspCall(context.Background(), http.MethodDelete, i.url, nil, nil)
}

// Release opens a gate and lets held replies go; the fault stays armed.
func (i *PSPInjection) Release() error {
	if i.err != nil {
		return nil
	}
	return pspCall(context.Background(), http.MethodPost, i.url+"/release", nil, nil)
}

// WaitFired waits until the fault has fired n times, or ctx ends.
func (i *PSPInjection) WaitFired(ctx context.Context, n int64) error {
	for {
		got, err := i.fired(ctx)
		if err == nil && got >= n {
			return nil
		}
		if i.err != nil {
			return i.err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s fired %d times, waiting for %d: %w", i.Fault.Label, got, n, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func pspCall(ctx context.Context, method, url string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fakepsp %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("fakepsp %s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
