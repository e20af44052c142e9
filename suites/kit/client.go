package kit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/onecopy"
)

// Client is a client of your own service, configured with Go values. Every
// copy it sends is one create in the history, recorded with what it heard;
// a copy whose reply never came is recorded as unknown (it may have taken
// effect). It sends each copy exactly once: a fresh connection per copy, so
// net/http cannot resend one behind the history's back (docs/PITFALLS.md#net-http).
type Client struct {
	// Name is the process name in the history ("phone-1").
	Name string
	// Caller is who pays; with the key it names the intent.
	Caller string
	// URL is your service's create endpoint.
	URL string
	// Method defaults to POST; KeyHeader to Idempotency-Key.
	Method, KeyHeader string
	// Header is sent on every copy (Authorization, say).
	Header http.Header
	// Timeout of one copy; default 2 s.
	Timeout time.Duration
	// Backoff between Pay's copies; default 100 ms.
	Backoff time.Duration
	Rec     *history.Recorder
	// Answer reads your service's reply. Default: a JSON body whose
	// "status" is one of the checker's outcomes and whose "payment_id"
	// names the payment; a 5xx, or a status it does not know, is an error.
	Answer func(code int, body []byte) (outcome, paymentID string)
}

// Payment is one request's meaning.
type Payment struct {
	Key      string
	Amount   int64
	Currency string
	// Body is sent as JSON; nil sends {"amount":..., "currency":...}. Its
	// JSON is the request's fingerprint: two copies with the same Body are
	// the same request.
	Body any
}

// Answer is what one copy heard.
type Answer struct {
	Code      int // 0: no reply
	Outcome   string
	PaymentID string
	Body      []byte
	Err       error
}

// Known reports whether the copy's outcome is known.
func (a Answer) Known() bool { return a.Code != 0 && a.Outcome != history.OutcomeError }

func (a Answer) String() string {
	if a.Code == 0 {
		return fmt.Sprintf("no reply (%v)", a.Err)
	}
	return fmt.Sprintf("%d %s %s %s", a.Code, a.Outcome, a.PaymentID, bytes.TrimSpace(a.Body))
}

// Intent is the history's intent of a key of this client's caller.
func (c *Client) Intent(key string) string { return "payments:" + c.Caller + ":" + key }

// Create sends one copy of p and records it.
func (c *Client) Create(ctx context.Context, p Payment) Answer {
	body := p.Body
	if body == nil {
		body = map[string]any{"amount": p.Amount, "currency": p.Currency}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Answer{Err: fmt.Errorf("kit.Client %s: body of %s: %w", c.Name, p.Key, err), Outcome: history.OutcomeError}
	}
	sum := sha256.Sum256(b)
	pend := c.Rec.Begin(c.Name, history.OpCreate, c.Intent(p.Key),
		history.Input{Fingerprint: hex.EncodeToString(sum[:8]), Amount: history.Int64(p.Amount), Currency: p.Currency})
	a := c.send(ctx, p.Key, b)
	onecopy.Record(pend, a.Code != 0, history.Output{Outcome: a.Outcome, PaymentID: a.PaymentID})
	return a
}

// Pay sends p until the answer is definite (succeeded, failed, mismatch,
// void), at most attempts copies, all under p's key: what an app does when
// a reply is lost or says "still processing".
func (c *Client) Pay(ctx context.Context, p Payment, attempts int) Answer {
	backoff := c.Backoff
	if backoff == 0 {
		backoff = 100 * time.Millisecond
	}
	var a Answer
	for i := 0; i < attempts; i++ {
		if a = c.Create(ctx, p); a.Known() && a.Outcome != history.OutcomeProcessing && a.Outcome != history.OutcomeInProgress {
			return a
		}
		select {
		case <-ctx.Done():
			return a
		case <-time.After(backoff):
		}
	}
	return a
}

func (c *Client) send(ctx context.Context, key string, body []byte) Answer {
	method, header, timeout := c.Method, c.KeyHeader, c.Timeout
	if method == "" {
		method = http.MethodPost
	}
	if header == "" {
		header = "Idempotency-Key"
	}
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL, bytes.NewReader(body))
	if err != nil {
		return Answer{Err: err, Outcome: history.OutcomeError}
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(header, key)
	r := onecopy.Do(onecopy.Client(timeout), req, 1<<16)
	if !r.Known() {
		// A status whose body never came is no answer either.
		return Answer{Err: r.Err}
	}
	answer := c.Answer
	if answer == nil {
		answer = JSONAnswer
	}
	a := Answer{Code: r.Status, Body: r.Body}
	a.Outcome, a.PaymentID = answer(r.Status, r.Body)
	return a
}

// JSONAnswer reads {"status": outcome, "payment_id": id}: a status the
// checker knows, under 500, else an error answer (onecopy.JSONOutcome).
func JSONAnswer(code int, body []byte) (outcome, paymentID string) {
	return onecopy.JSONOutcome(code, body)
}
