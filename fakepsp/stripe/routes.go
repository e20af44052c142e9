package stripe

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	stripego "github.com/stripe/stripe-go/v85"
)

// call is one API request on its way through the layers.
type call struct {
	p         *API
	acct      *account
	r         *http.Request
	params    params
	idemKey   string
	endpoint  string // "POST /v1/payment_intents": the route, for key scope and rate limits
	requestID string
	version   string      // the API version the answer is in (Stripe-Version)
	started   bool        // execution began: the answer is saved under the key
	lose      bool        // LoseReply fired: close the connection instead of answering
	hold      *core.Fault // HoldReply fired: hold the answer until released
}

// begin marks the start of execution: from here on the answer, whatever it
// is, is saved under the idempotency key. Validation happens before it.
func (c *call) begin() { c.started = true }

// route is one endpoint: its stripe-go params struct (the parameters Stripe
// takes there) and the fields its answer can expand.
type route struct {
	pattern string
	params  any
	expand  []string
	h       func(*call) response
}

func (p *API) routes(mux *http.ServeMux) {
	pi := []string{"latest_charge", "latest_charge.balance_transaction", "customer", "payment_method"}
	list := prefixed("data.", pi)
	rf := []string{"charge", "payment_intent", "balance_transaction", "charge.balance_transaction"}
	ch := []string{"payment_intent", "balance_transaction", "customer"}
	for _, rt := range []route{
		{"POST /v1/payment_intents", stripego.PaymentIntentCreateParams{}, pi, p.createIntent},
		{"GET /v1/payment_intents", stripego.PaymentIntentListParams{}, list, p.listIntents},
		{"GET /v1/payment_intents/search", stripego.PaymentIntentSearchParams{}, list, p.searchIntents},
		{"GET /v1/payment_intents/{id}", stripego.PaymentIntentRetrieveParams{}, pi, p.retrieveIntent},
		{"POST /v1/payment_intents/{id}", stripego.PaymentIntentUpdateParams{}, pi, p.updateIntent},
		{"POST /v1/payment_intents/{id}/confirm", stripego.PaymentIntentConfirmParams{}, pi, p.confirmIntent},
		{"POST /v1/payment_intents/{id}/capture", stripego.PaymentIntentCaptureParams{}, pi, p.captureIntent},
		{"POST /v1/payment_intents/{id}/cancel", stripego.PaymentIntentCancelParams{}, pi, p.cancelIntent},
		{"GET /v1/charges", stripego.ChargeListParams{}, prefixed("data.", ch), p.listCharges},
		{"GET /v1/charges/{id}", stripego.ChargeRetrieveParams{}, ch, p.retrieveCharge},
		{"GET /v1/balance_transactions", stripego.BalanceTransactionListParams{}, []string{"data.source"}, p.listBalanceTxns},
		{"GET /v1/balance_transactions/{id}", stripego.BalanceTransactionRetrieveParams{}, []string{"source"}, p.retrieveBalanceTxn},
		{"GET /v1/account", stripego.AccountRetrieveParams{}, nil, p.retrieveAccount},
		{"GET /v1/payment_methods", stripego.PaymentMethodListParams{}, nil, p.listMethods},
		{"GET /v1/payment_methods/{id}", stripego.PaymentMethodRetrieveParams{}, nil, p.retrieveMethod},
		{"POST /v1/customers", stripego.CustomerCreateParams{}, nil, p.createCustomer},
		{"GET /v1/customers", stripego.CustomerListParams{}, nil, p.listCustomers},
		{"GET /v1/customers/{id}", stripego.CustomerRetrieveParams{}, nil, p.retrieveCustomer},
		{"POST /v1/refunds", stripego.RefundCreateParams{}, rf, p.createRefund},
		{"GET /v1/refunds", stripego.RefundListParams{}, prefixed("data.", rf), p.listRefunds},
		{"GET /v1/refunds/{id}", stripego.RefundRetrieveParams{}, rf, p.retrieveRefund},
		{"GET /v1/events", stripego.EventListParams{}, nil, p.listEvents},
		{"GET /v1/events/{id}", stripego.EventRetrieveParams{}, nil, p.retrieveEvent},
		{"POST /v1/webhook_endpoints", stripego.WebhookEndpointCreateParams{}, nil, p.createEndpoint},
		{"GET /v1/webhook_endpoints", stripego.WebhookEndpointListParams{}, nil, p.listEndpoints},
		{"DELETE /v1/webhook_endpoints/{id}", stripego.WebhookEndpointDeleteParams{}, nil, p.deleteEndpoint},
	} {
		mux.Handle(rt.pattern, p.api(rt.pattern, p.checked(rt)))
	}
	mux.Handle("/", p.api("/", func(c *call) response {
		return errResp(http.StatusNotFound, Error{Type: "invalid_request_error",
			Message: "Unrecognized request URL (" + c.r.Method + ": " + c.r.URL.Path + ")."})
	}))
}

func prefixed(prefix string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = prefix + f
	}
	return out
}

// checked refuses, before anything runs (so nothing is saved under the key),
// what Stripe refuses for any endpoint: unknown parameters and fields that
// cannot be expanded; then it runs the handler and expands its answer.
func (p *API) checked(rt route) func(*call) response {
	tree := ParamTree(rt.params)
	return func(c *call) response {
		if bad := tree.UnknownParams(c.params); len(bad) > 0 {
			return UnknownParam(bad)
		}
		exp := c.params.Array("expand")
		for _, e := range exp {
			if !oneOf(e, rt.expand) {
				return NotExpandable(e, rt.expand)
			}
		}
		return p.expand(c, rt.h(c), exp)
	}
}

// api wraps a handler in Stripe's layers, in Stripe's order: authentication
// (401) and rate limits (429) before the idempotency layer; validation
// failures are not saved; once execution begins, the answer is saved.
func (p *API) api(endpoint string, h func(*call) response) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.h.Enter() {
			http.Error(w, "fakepsp closed", http.StatusServiceUnavailable)
			return
		}
		defer p.h.Leave()
		if !p.h.Wait(r.Context()) {
			return // client gave up or the PSP closed while paused
		}
		// The key is cloned: sliced from its header line, it would keep the
		// whole line alive in every record that keeps the key (issue 54).
		c := &call{p: p, r: r, endpoint: endpoint, requestID: "req_" + randToken(14), idemKey: strings.Clone(r.Header.Get(Keys.Header)),
			version: APIVersion}
		key, hasKey := Dialect{}.Credential(r)
		if !hasKey {
			p.write(w, c, refuse(core.Refusal{Kind: core.RefuseNoCredential}), false)
			return
		}
		if c.acct = p.accountFor(key); c.acct == nil {
			p.write(w, c, refuse(core.Refusal{Kind: core.RefuseBadCredential, Key: key}), false)
			return
		}
		v, valid := RequestVersion(r)
		if !valid {
			p.write(w, c, InvalidVersion(v), false)
			return
		}
		c.version = v
		prm, bad := ReadParams(r)
		if bad != nil {
			p.write(w, c, *bad, false)
			return
		}
		c.params = prm
		amount, _, _ := prm.Int64("amount")
		if !p.h.Allow(key, endpoint) || p.faults.Fire(core.RateLimit, core.Target{Key: c.idemKey, Amount: amount, Op: opOf(c)}) != nil {
			p.write(w, c, rateLimited(), false)
			return
		}
		if r.Method != http.MethodPost || c.idemKey == "" {
			p.write(w, c, h(c), false)
			return
		}
		p.idempotent(w, c, h)
	})
}

// idempotent runs a POST that carries an Idempotency-Key through the core's
// key rules (fakepsp/core/keyed.go), with Stripe's scope: the concrete path, so a key
// used to confirm pi_1 cannot confirm pi_2.
func (p *API) idempotent(w http.ResponseWriter, c *call, h func(*call) response) {
	out := core.Keyed{Rules: Keys, Window: p.h.KeyWindow(), Store: c.acct.keys, Spill: p.ops.Spill, Lock: p.mu, Now: p.nowLocked,
		Key: c.idemKey, Scope: c.r.Method + " " + c.r.URL.Path, Fingerprint: c.params.Fingerprint()}.
		Do(func() (int, []byte, string, bool) {
			resp := withLogURL(c, h(c))
			return resp.Status, encode(resp.Body), c.requestID, c.started
		})
	switch {
	case out.Refusal != nil:
		p.write(w, c, refuse(*out.Refusal), false)
	case out.Replay != nil:
		p.replay(w, c, *out.Replay)
	default:
		p.writeBody(w, c, out.Status, out.Body, false)
	}
}

// logCall logs c's answer in the PSP's call log.
func (p *API) logCall(c *call, status int, replayed bool) {
	p.h.LogCall(core.Call{Endpoint: c.endpoint, Path: loggedPath(c.endpoint, c.r.URL.Path), IdempotencyKey: c.idemKey,
		Status: status, Replayed: replayed, Executed: c.started})
}

// loggedPath is what the call log keeps of path: the route's own string
// when they are the same (no id in it), else a copy, for a slice of the
// request line would keep the whole line alive.
func loggedPath(endpoint, path string) string {
	if _, pattern, ok := strings.Cut(endpoint, " "); ok && pattern == path {
		return pattern
	}
	return strings.Clone(path)
}

func (p *API) replay(w http.ResponseWriter, c *call, e core.KeyEntry) {
	w.Header().Set("Original-Request", e.RequestID)
	c.requestID = e.RequestID
	p.writeBody(w, c, e.Status, e.Body, true)
}

func (p *API) write(w http.ResponseWriter, c *call, resp response, replayed bool) {
	p.writeBody(w, c, resp.Status, encode(withLogURL(c, resp).Body), replayed)
}

// writeBody answers, unless a reply fault says to lose or hold the answer.
func (p *API) writeBody(w http.ResponseWriter, c *call, status int, body []byte, replayed bool) {
	p.logCall(c, status, replayed)
	if c.hold != nil {
		select {
		case <-c.hold.Released():
		case <-c.r.Context().Done():
			c.lose = true
		case <-p.ops.Ctx.Done():
			c.lose = true
		}
	}
	if c.lose {
		dropConnection(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Request-Id", c.requestID)
	h.Set("Stripe-Version", c.version)
	if c.idemKey != "" && c.r.Method == http.MethodPost {
		h.Set("Idempotency-Key", c.idemKey)
	}
	if replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	if v := ShouldRetry(status); v != "" {
		h.Set("Stripe-Should-Retry", v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// dropConnection closes the client's connection without an answer: the
// client sees EOF, the charge has been made and saved.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
		return // a hijack error means the connection is already gone
	}
	panic(http.ErrAbortHandler) // net/http closes the connection without logging
}

func encode(body any) []byte {
	b, err := json.Marshal(body)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"error": Error{Type: "api_error", Message: "fakepsp: encoding the answer: " + err.Error()}})
	}
	return append(b, '\n')
}

// opOf names the effect a request has, for Match.Op: a manual-capture
// intent's confirmation authorizes, its capture charges.
func opOf(c *call) string {
	switch c.endpoint {
	case "POST /v1/payment_intents":
		if c.params.Str("capture_method") == "manual" {
			return "authorize"
		}
		return "charge"
	case "POST /v1/payment_intents/{id}/confirm":
		m := c.params.Str("capture_method")
		if m == "" {
			c.p.mu.Lock()
			if pi := c.acct.intents.Get(c.r.PathValue("id")); pi != nil {
				m = pi.CaptureMethod
			}
			c.p.mu.Unlock()
		}
		if m == "manual" {
			return "authorize"
		}
		return "charge"
	case "POST /v1/payment_intents/{id}/capture":
		return "charge"
	case "POST /v1/payment_intents/{id}/cancel":
		return "cancel"
	case "POST /v1/refunds":
		return "refund"
	}
	return ""
}
