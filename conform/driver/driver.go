package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/internal/onecopy"
)

// KeyMode says how the idempotency key is presented.
type KeyMode int

// Key presentations used by the protocol vectors.
const (
	KeyNormal KeyMode = iota
	KeyOmit
	KeyQuoted      // Structured-Field string: "K"
	KeyHeaderLower // header name in lower case
)

// Send is one request to make.
type Send struct {
	Step     string
	Caller   int
	Instance int
	// Via replaces the instance's base URL (a Toxiproxy link in front of it).
	Via     string
	Meaning Meaning
	Key     string
	KeyMode KeyMode
	// Reorder sends the same meaning with its JSON members reordered.
	Reorder bool
	// Volatile lists top-level fields sent with a fresh value (they are
	// added when the template lacks them).
	Volatile []string
	// Method overrides the create method (the GET-ignores-key vector).
	Method string
	// NoHistory keeps the attempt out of the checker history (vectors whose
	// request is not a create: GET, missing key).
	NoHistory bool
	Timeout   time.Duration
	// Template replaces the create request (the capture check's authorize).
	Template *config.Request
}

// Driver builds requests from a config, sends each exactly once, and records
// every copy and a checker history.
type Driver struct {
	cfg      *config.Config
	bases    []string
	client   *http.Client
	Recorder *history.Recorder

	mu       sync.Mutex
	seq      int
	attempts []*Attempt
	// forgotten counts the attempts Forget dropped, so a seq stays the
	// attempt's place in the whole run.
	forgotten int
	offset    time.Duration
}

// SetClockOffset moves the {{now_ns}} idemcheck sends by d: after the
// harness advanced the target's clocks, a stamp must be in the target's time.
func (d *Driver) SetClockOffset(off time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.offset = off
}

func (d *Driver) nowNS() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strconv.FormatInt(history.Now()+int64(d.offset), 10)
}

// New returns a driver for the target at bases (one URL per instance).
func New(cfg *config.Config, bases []string) *Driver {
	// Each Do is exactly one copy on the wire; a request's timeout is its
	// context's.
	return &Driver{cfg: cfg, bases: bases, client: onecopy.Client(0), Recorder: history.NewRecorder()}
}

// Bases are the instances' base URLs.
func (d *Driver) Bases() []string { return d.bases }

// Attempts returns every copy sent so far, in send order.
func (d *Driver) Attempts() []*Attempt {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.attempts)
}

// Intent names the scope of a key for a caller, as HISTORY.md: endpoint:caller:key.
func (d *Driver) Intent(caller int, key string) string {
	return strings.Trim(d.cfg.Create.Path, "/") + ":" + d.cfg.Callers[caller].Name + ":" + key
}

// Fingerprint is idemcheck's own fingerprint of a meaning, for the history.
func Fingerprint(m Meaning) string {
	b := fmt.Appendf(nil, "%s|%d|%s|%s", m.OrderID, m.Amount, m.Currency, m.PaymentMethod)
	if m.Literal.Field != "" {
		b = fmt.Appendf(b, "|%s=%s", m.Literal.Field, m.Literal.Raw)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Create sends one create request.
func (d *Driver) Create(ctx context.Context, s Send) *Attempt {
	c := d.cfg.Create
	if s.Template != nil {
		c = *s.Template
	}
	method := c.Method
	if s.Method != "" {
		method = s.Method
	}
	vals := s.Meaning.vals()
	vals["key"] = s.Key
	vals["caller"] = d.cfg.Callers[s.Caller].Name
	body := []byte(Fill(c.Body, vals))
	var err error
	if c.Key.BodyField != "" && s.KeyMode != KeyOmit && method != "GET" {
		body, err = SetField(body, c.Key.BodyField, keyValue(s))
	}
	if err == nil && s.Meaning.Literal.Field != "" {
		body, err = SetField(body, s.Meaning.Literal.Field, json.RawMessage(s.Meaning.Literal.Raw))
	}
	if err == nil && s.Reorder {
		body, err = Reorder(body)
	}
	for _, f := range s.Volatile {
		if err == nil {
			body, err = SetField(body, f, "idemcheck-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		}
	}
	if method == "GET" {
		body = nil
	}
	a := &Attempt{Step: s.Step, Caller: d.cfg.Callers[s.Caller].Name, Instance: s.Instance, Method: method, Amount: s.Meaning.Amount}
	if s.Key != "" && !s.NoHistory {
		a.Intent = d.Intent(s.Caller, s.Key)
	}
	base := s.Via
	if base == "" {
		base = d.bases[s.Instance%len(d.bases)]
	}
	a.URL = strings.TrimRight(base, "/") + Fill(c.Path, vals)
	if err != nil {
		a.Err = "idemcheck could not build the body: " + err.Error()
		d.keep(a)
		return a
	}
	req, rerr := http.NewRequestWithContext(ctx, method, a.URL, bytes.NewReader(body))
	if rerr != nil {
		a.Err = rerr.Error()
		d.keep(a)
		return a
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if c.ContentType != "" && body != nil {
		req.Header.Set("Content-Type", c.ContentType)
	}
	vals["now_ns"] = d.nowNS()
	for k, v := range c.Headers {
		req.Header.Set(k, Fill(v, vals))
	}
	for k, v := range d.cfg.Callers[s.Caller].Headers {
		req.Header.Set(k, Fill(v, vals))
	}
	if c.Key.Header != "" && s.KeyMode != KeyOmit {
		name := http.CanonicalHeaderKey(c.Key.Header)
		if s.KeyMode == KeyHeaderLower {
			name = strings.ToLower(name)
		}
		// Direct map access keeps a lower-case name on the wire as given.
		req.Header[name] = []string{keyValue(s)}
	}
	a.ReqBody = string(body)
	var pend *history.Pending
	if a.Intent != "" {
		pend = d.Recorder.Begin(fmt.Sprintf("client-%s-%d", a.Caller, d.nextProc()), history.OpCreate, a.Intent,
			history.Input{Fingerprint: Fingerprint(s.Meaning), Amount: history.Int64(s.Meaning.Amount), Currency: s.Meaning.Currency})
	}
	d.do(req, a, s.Timeout)
	onecopy.Record(pend, !a.Unknown(), history.Output{Outcome: a.Outcome, PaymentID: a.PaymentID})
	d.keep(a)
	return a
}

func keyValue(s Send) string {
	if s.KeyMode == KeyQuoted {
		return `"` + s.Key + `"`
	}
	return s.Key
}

// Lookup asks the target whether a payment happened.
func (d *Driver) Lookup(ctx context.Context, step string, caller, instance int, paymentID string) *Attempt {
	return d.Call(ctx, d.cfg.Lookup, step, caller, instance, paymentID, "")
}

// Resolve asks the target's RESOLVE whether the key's payment happened,
// under the caller's key (the resolve request carries it).
func (d *Driver) Resolve(ctx context.Context, step string, caller, instance int, key string) *Attempt {
	return d.Call(ctx, d.cfg.Resolve, step, caller, instance, "", key)
}

// Call sends a follow-up request (lookup, refund) about a payment, with key
// when the request template carries one; its {{amount}} is the payment's.
func (d *Driver) Call(ctx context.Context, l *config.Request, step string, caller, instance int, paymentID, key string) *Attempt {
	return d.CallPart(ctx, l, step, caller, instance, paymentID, key, 0)
}

// amountOf is the amount of the create that was answered with paymentID (0
// when none was).
func (d *Driver) amountOf(paymentID string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.attempts {
		if paymentID != "" && a.PaymentID == paymentID && a.Amount > 0 {
			return a.Amount
		}
	}
	return 0
}

// CallPart is Call with {{amount}} set to amount (a partial refund); 0 is
// the payment's amount.
func (d *Driver) CallPart(ctx context.Context, l *config.Request, step string, caller, instance int, paymentID, key string, amount int64) *Attempt {
	if amount == 0 {
		amount = d.amountOf(paymentID)
	}
	vals := map[string]string{"payment_id": paymentID, "caller": d.cfg.Callers[caller].Name, "key": key, "amount": strconv.FormatInt(amount, 10)}
	a := &Attempt{Step: step, Caller: d.cfg.Callers[caller].Name, Instance: instance, Method: l.Method}
	a.URL = strings.TrimRight(d.bases[instance%len(d.bases)], "/") + Fill(l.Path, vals)
	body := []byte(Fill(l.Body, vals))
	if l.Key.BodyField != "" && key != "" {
		if len(body) == 0 {
			body = []byte("{}")
		}
		var err error
		if body, err = SetField(body, l.Key.BodyField, key); err != nil {
			a.Err = "idemcheck could not build the body: " + err.Error()
			d.keep(a)
			return a
		}
	}
	var rd io.Reader = http.NoBody
	if len(body) > 0 {
		rd = bytes.NewReader(body)
		a.ReqBody = string(body)
	}
	req, err := http.NewRequestWithContext(ctx, l.Method, a.URL, rd)
	if err != nil {
		a.Err = err.Error()
		d.keep(a)
		return a
	}
	if l.ContentType != "" && len(body) > 0 {
		req.Header.Set("Content-Type", l.ContentType)
	}
	vals["now_ns"] = d.nowNS()
	for k, v := range l.Headers {
		req.Header.Set(k, Fill(v, vals))
	}
	for k, v := range d.cfg.Callers[caller].Headers {
		req.Header.Set(k, Fill(v, vals))
	}
	if l.Key.Header != "" && key != "" {
		req.Header.Set(l.Key.Header, key)
	}
	d.do(req, a, 0)
	d.keep(a)
	return a
}

func (d *Driver) nextProc() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	return d.seq
}

func (d *Driver) keep(a *Attempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a.Seq = d.forgotten + len(d.attempts) + 1
	d.attempts = append(d.attempts, a)
}

// NextSeq is the seq the next attempt kept will have.
func (d *Driver) NextSeq() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.forgotten + len(d.attempts) + 1
}

// Forget drops the attempts up to seq upTo: a long chaos run's rounds that
// were judged with no finding need them no more (chaos_rounds.go), and
// keeping every copy of an hour's traffic is what made a soak grow.
func (d *Driver) Forget(upTo int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(max(upTo-d.forgotten, 0), len(d.attempts))
	clear(d.attempts[:n])
	d.attempts = slices.Clone(d.attempts[n:])
	d.forgotten += n
}

func (d *Driver) do(req *http.Request, a *Attempt, timeout time.Duration) {
	if timeout == 0 {
		timeout = d.cfg.TimeoutD()
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer cancel()
	req = req.WithContext(ctx)
	a.ReqHeaders = redact(req.Header)
	a.Call = history.Now()
	r := onecopy.Do(d.client, req, 1<<20)
	a.Return = history.Now()
	if !r.Known() {
		a.Err = r.Err.Error()
		if r.Status != 0 {
			// Headers came but the body did not: still unknown.
			a.Err = "reading body: " + a.Err
		}
		a.Outcome = "unknown"
		return
	}
	a.Status = r.Status
	a.RespHeaders = flat(r.Header)
	a.RespBody = string(r.Body)
	a.Outcome = d.outcome(r.Status, r.Body)
	if p := d.cfg.Outcomes.PaymentID; p != "" {
		a.PaymentID, _ = JSONPath(r.Body, p)
	}
}

func (d *Driver) outcome(status int, body []byte) string {
	for _, r := range d.cfg.Outcomes.Rules {
		if !slices.Contains(r.Status, status) {
			continue
		}
		if r.Field != "" {
			v, ok := JSONPath(body, r.Field)
			if !ok || (r.Equals != "" && v != r.Equals) {
				continue
			}
		}
		return r.Outcome
	}
	return history.OutcomeError
}

// Reachable reports whether anything answers HTTP at base; it returns the
// transport error otherwise.
func (d *Driver) Reachable(ctx context.Context, base, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(base, "/")+path, nil)
	if err != nil {
		return err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			return ue.Unwrap()
		}
		return err
	}
	resp.Body.Close()
	return nil
}
