package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PSP is a minimal Stripe-v1 client for the calls the reference makes. It
// never resends by itself: a request whose reply was lost is reported as an
// unknown outcome and the caller decides (with the same derived key).
type PSP struct {
	Base, Secret string
	HC           *http.Client
}

// NewPSP returns a client whose transport keeps connections but cannot
// replay a request (GetBody is cleared on every request, see do).
func NewPSP(base, secret string) *PSP {
	return &PSP{Base: strings.TrimRight(base, "/"), Secret: secret, HC: &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}}}
}

// Verdict is what a PSP call says about the effect.
type Verdict int

// Verdicts.
const (
	// Unknown: the effect may or may not have happened (lost reply, timeout,
	// 5xx, key in use).
	Unknown Verdict = iota
	Succeeded
	// Failed is definite: the PSP answered that it did not act (a decline).
	Failed
)

// Result is a PSP call's outcome.
type Result struct {
	Verdict  Verdict
	ChargeID string
	RefundID string
	Status   int
	Message  string
}

// Charge creates and confirms a PaymentIntent under key.
func (p *PSP) Charge(ctx context.Context, key string, amount int64, currency, method string, md map[string]string) (Result, error) {
	f := url.Values{}
	f.Set("amount", strconv.FormatInt(amount, 10))
	f.Set("currency", strings.ToLower(currency))
	f.Set("payment_method", method)
	f.Set("confirm", "true")
	for k, v := range md {
		f.Set("metadata["+k+"]", v)
	}
	var body struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		LatestCharge string `json:"latest_charge"`
	}
	res, err := p.do(ctx, "/v1/payment_intents", key, f, &body)
	if err != nil || res.Verdict != Succeeded {
		return res, err
	}
	if body.Status != "succeeded" {
		res.Verdict, res.Message = Failed, "payment intent status "+body.Status
		return res, nil
	}
	res.ChargeID = body.LatestCharge
	if res.ChargeID == "" {
		res.ChargeID = body.ID
	}
	return res, nil
}

// Refund refunds amount (0: all that is left) of a charge under key.
func (p *PSP) Refund(ctx context.Context, key, chargeID string, amount int64, md map[string]string) (Result, error) {
	f := url.Values{}
	if amount > 0 {
		f.Set("amount", strconv.FormatInt(amount, 10))
	}
	if strings.HasPrefix(chargeID, "pi_") {
		f.Set("payment_intent", chargeID)
	} else {
		f.Set("charge", chargeID)
	}
	for k, v := range md {
		f.Set("metadata["+k+"]", v)
	}
	var body struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	res, err := p.do(ctx, "/v1/refunds", key, f, &body)
	if err != nil || res.Verdict != Succeeded {
		return res, err
	}
	res.RefundID = body.ID
	return res, nil
}

func (p *PSP) do(ctx context.Context, path, key string, f url.Values, out any) (Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Base+path, strings.NewReader(f.Encode()))
	if err != nil {
		return Result{}, err
	}
	// net/http replays a request carrying Idempotency-Key on a dead reused
	// connection (docs/PITFALLS.md#net-http); without GetBody it cannot.
	req.GetBody = nil
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+p.Secret)
	req.Header.Set("Idempotency-Key", key)
	resp, err := p.HC.Do(req)
	if err != nil {
		return Result{Verdict: Unknown, Message: err.Error()}, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Result{Verdict: Unknown, Status: resp.StatusCode, Message: err.Error()}, nil
	}
	res := Result{Status: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusOK:
		if err := json.Unmarshal(b, out); err != nil {
			return Result{Verdict: Unknown, Status: resp.StatusCode, Message: "undecodable reply: " + err.Error()}, nil
		}
		res.Verdict = Succeeded
	case resp.StatusCode == http.StatusPaymentRequired:
		res.Verdict, res.Message = Failed, errMessage(b)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusBadRequest && !strings.Contains(string(b), "idempotency"):
		// A request the PSP refused before executing: no effect, but also a
		// bug of ours, so say so.
		res.Verdict, res.Message = Failed, errMessage(b)
		return res, fmt.Errorf("psp %s: %d %s", path, resp.StatusCode, res.Message)
	default:
		// 409 key in use, 429, 5xx and anything else: the effect is unknown.
		res.Verdict, res.Message = Unknown, errMessage(b)
	}
	return res, nil
}

func errMessage(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// IsUnknown reports a PSP verdict that leaves the effect unknown.
func IsUnknown(r Result) bool { return r.Verdict == Unknown }

var _ = errors.New
