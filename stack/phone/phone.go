// Package phone is the harness's client: the buyer's app. It makes the key
// before the first send and journals it, retries with the same key, asks
// "did it happen?" (RESOLVE) on a timeout, and reads the payment before it
// believes an error on a retry (Parts 1 to 4). Every copy it sends is one
// operation in the history, recorded with what the app concluded from it.
package phone

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/onecopy"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/router"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Order is what the buyer pays for: the meaning fields, in any JSON order,
// plus extras the server must ignore.
type Order struct {
	OrderID       string
	Amount        int64
	Currency      string
	PaymentMethod string
	Merchant      string
	// Extra fields sent in the body (a client timestamp, say).
	Extra map[string]any
	// Reorder sends the fields in another order.
	Reorder bool
}

// Story is the story's order: order 42, 3000 USD, pm_1.
func Story() Order {
	return Order{OrderID: "42", Amount: 3000, Currency: "USD", PaymentMethod: "pm_1"}
}

// Body renders the JSON body.
func (o Order) Body() []byte {
	var b bytes.Buffer
	field := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('{')
	fields := [][2]any{{"order_id", o.OrderID}, {"amount", o.Amount}, {"currency", o.Currency}, {"payment_method", o.PaymentMethod}}
	if o.Reorder {
		fields = [][2]any{{"payment_method", o.PaymentMethod}, {"currency", o.Currency}, {"amount", o.Amount}, {"order_id", o.OrderID}}
	}
	for _, f := range fields {
		field(f[0].(string), f[1])
	}
	if o.Merchant != "" {
		field("merchant", o.Merchant)
	}
	for k, v := range o.Extra {
		field(k, v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Fingerprint is the true meaning of the order, what the history records.
func (o Order) Fingerprint() string {
	return api.Fingerprint(api.Request{OrderID: o.OrderID, Amount: o.Amount, Currency: o.Currency, PaymentMethod: o.PaymentMethod})
}

// Reply is one answer the phone got.
type Reply struct {
	Code      int    // HTTP status; 0 when no reply came
	Outcome   string // the checker outcome the app concluded
	PaymentID string
	Message   string
	Region    string // the Region that answered (the router's RegionHeader), if any
	Timeout   bool   // no reply within the phone's timeout (or the connection died)
	Err       error  // transport error, if any
}

// Known reports whether the reply carried an outcome the app can act on.
func (r Reply) Known() bool { return r.Code != 0 && r.Outcome != history.OutcomeError }

// Phone is one buyer's app.
type Phone struct {
	Name   string // process name in the history: phone-1
	Caller string // the bearer token: u1
	Base   string // the load balancer's URL
	Rec    *history.Recorder
	// Timeout of one attempt; default the story's 10 s.
	Timeout time.Duration
	// TrustsError is the mutant client-trusts-error: an error on a retry
	// is believed as "failed" instead of reading the payment first.
	TrustsError bool
	// Attempts bounds Pay's retries; default 12.
	Attempts int
	// Header is sent on every request (a Region router's nearest-Region hint).
	Header http.Header

	mu      sync.Mutex
	journal []string
	Sent    []Reply // every copy's reply, in order
	hc      *http.Client
}

func (p *Phone) client() *http.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hc == nil {
		t := p.Timeout
		if t == 0 {
			t = storytime.D(storytime.PhoneTimeout)
		}
		// Every copy sent is one copy recorded (onecopy.Client).
		p.hc = onecopy.Client(t)
	}
	return p.hc
}

// NewKey makes a key and journals it before its first send.
func (p *Phone) NewKey() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	k := "K-" + hex.EncodeToString(b)
	p.Journal(k)
	return k
}

// Journal records key as made (a story's fixed K1 goes through here too).
func (p *Phone) Journal(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journal = append(p.journal, key)
}

// Keys is the journal.
func (p *Phone) Keys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.journal...)
}

// Intent is the checker's intent name of key: the scope.
func (p *Phone) Intent(key string) string { return api.Scope(p.Caller, key, true) }

// RegionHeader names, on an answer, the Region that served it (the
// history's region field).
const RegionHeader = router.RegionHeader

type wire struct {
	PaymentID string `json:"payment_id"`
	Status    string `json:"status"`
	Error     string `json:"error"`
}

func (p *Phone) do(ctx context.Context, method, path, key string, body []byte) Reply {
	req, err := http.NewRequestWithContext(ctx, method, p.Base+path, bytes.NewReader(body))
	if err != nil {
		return Reply{Err: err, Outcome: history.OutcomeError}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.Caller)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	for k, vs := range p.Header {
		req.Header[k] = vs
	}
	got := onecopy.Do(p.client(), req, 1<<16)
	if !got.Known() {
		// No reply, or a status whose body never came: the app learned
		// nothing (Code 0 is what records it as unknown).
		return Reply{Err: got.Err, Timeout: true}
	}
	var w wire
	_ = json.Unmarshal(got.Body, &w)
	r := Reply{Code: got.Status, Message: w.Error, Region: got.Header.Get(RegionHeader)}
	r.Outcome, r.PaymentID = onecopy.JSONOutcome(got.Status, got.Body)
	if r.Outcome == history.OutcomeError && r.Message == "" {
		r.Message = string(bytes.TrimSpace(got.Body))
	}
	return r
}

// Send sends one copy of a create and records it. retry says whether an
// earlier copy of this key was sent (it changes how an error is read).
func (p *Phone) Send(ctx context.Context, key string, o Order, retry bool) Reply {
	return p.SendBody(ctx, key, o, o.Body(), retry)
}

// SendBody is Send with the body bytes given (malformed input, say).
func (p *Phone) SendBody(ctx context.Context, key string, o Order, body []byte, retry bool) Reply {
	in := history.Input{Fingerprint: o.Fingerprint(), Amount: history.Int64(o.Amount), Currency: o.Currency}
	var pend *history.Pending
	if p.Rec != nil {
		pend = p.Rec.Begin(p.Name, history.OpCreate, p.Intent(key), in)
	}
	r := p.do(ctx, http.MethodPost, "/payments", key, body)
	if r.Code != 0 && r.Outcome == history.OutcomeError && retry {
		// An error on a retry is a question, not an answer (docs/SCENARIOS.md#B2).
		if p.TrustsError {
			r.Outcome = history.OutcomeFailed
		} else if rd := p.read(ctx, key, r.PaymentID); rd.Known() {
			r.Outcome, r.PaymentID, r.Message = rd.Outcome, rd.PaymentID, "read after error: "+r.Message
		}
	}
	p.finish(pend, r)
	p.mu.Lock()
	p.Sent = append(p.Sent, r)
	p.mu.Unlock()
	return r
}

// read looks the payment up (by id when the app knows it) without recording
// a separate operation: it is part of deciding what the error meant.
func (p *Phone) read(ctx context.Context, key, id string) Reply {
	if id != "" {
		return p.do(ctx, http.MethodGet, "/payments/"+id, "", nil)
	}
	// Resolve, not a plain read: an absent key becomes void, so the error
	// cannot be followed by a late success.
	return p.do(ctx, http.MethodPost, "/payments/resolve", key, nil)
}

func (p *Phone) finish(pend *history.Pending, r Reply) {
	if pend != nil && r.Code != 0 && r.Region != "" {
		pend.SetRegion(r.Region)
	}
	onecopy.Record(pend, r.Code != 0, history.Output{Outcome: r.Outcome, PaymentID: r.PaymentID})
}

// Resolve asks "did it happen?" and records it.
func (p *Phone) Resolve(ctx context.Context, key string) Reply {
	var pend *history.Pending
	if p.Rec != nil {
		pend = p.Rec.Begin(p.Name, history.OpResolve, p.Intent(key), history.Input{})
	}
	r := p.do(ctx, http.MethodPost, "/payments/resolve", key, nil)
	p.finish(pend, r)
	return r
}

// Get reads a payment by id (not recorded: a plain read).
func (p *Phone) Get(ctx context.Context, id string) Reply {
	return p.do(ctx, http.MethodGet, "/payments/"+id, "", nil)
}

// Refund asks for a refund of amount (0: all) of payment id; it returns the HTTP status and the
// refund status the API answered (refunded or refund_pending).
func (p *Phone) Refund(ctx context.Context, id string, amount int64) (int, string, error) {
	var body io.Reader
	if amount > 0 {
		body = bytes.NewReader([]byte(`{"amount":` + strconv.FormatInt(amount, 10) + `}`))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Base+"/payments/"+id+"/refund", body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+p.Caller)
	got := onecopy.Do(p.client(), req, 1<<16)
	if !got.Known() {
		return 0, "", fmt.Errorf("refund %s: no whole answer: %w", id, got.Err)
	}
	var w wire
	_ = json.Unmarshal(got.Body, &w)
	return got.Status, w.Status, nil
}

// ErrGaveUp is Pay's answer when every attempt left the outcome open.
var ErrGaveUp = errors.New("phone: gave up with the outcome still open")

// Pay runs the app's whole flow for one tap: send, retry with the same key
// while the answer is open, resolve on a timeout. It returns the final reply.
func (p *Phone) Pay(ctx context.Context, key string, o Order) (Reply, error) {
	return p.pay(ctx, key, o, false)
}

// Retry continues Pay after an earlier copy of key was sent.
func (p *Phone) Retry(ctx context.Context, key string, o Order) (Reply, error) {
	return p.pay(ctx, key, o, true)
}

func (p *Phone) pay(ctx context.Context, key string, o Order, retry bool) (Reply, error) {
	n := p.Attempts
	if n == 0 {
		n = 12
	}
	for range n {
		r := p.Send(ctx, key, o, retry)
		retry = true
		switch {
		case r.Timeout:
			rs := p.Resolve(ctx, key)
			if rs.Outcome == history.OutcomeVoid || rs.Outcome == history.OutcomeSucceeded || rs.Outcome == history.OutcomeFailed {
				return rs, nil
			}
		case r.Outcome == history.OutcomeProcessing || r.Outcome == history.OutcomeInProgress || r.Outcome == history.OutcomeError:
		default:
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(storytime.D(1)):
		}
	}
	return Reply{}, ErrGaveUp
}

// String renders a reply for failure messages.
func (r Reply) String() string {
	if r.Code == 0 {
		return "no reply (" + fmt.Sprint(r.Err) + ")"
	}
	return strconv.Itoa(r.Code) + " " + r.Outcome + " " + r.PaymentID + " " + r.Message
}
