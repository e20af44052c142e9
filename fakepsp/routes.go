package fakepsp

import (
	"encoding/json"
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
	"github.com/stripe/stripe-go/v85"
)

// call is one API request on its way through the layers.
type call struct {
	p         *PSP
	acct      *account
	r         *http.Request
	params    params
	idemKey   string
	endpoint  string // "POST /v1/payment_intents": the route, for key scope and rate limits
	requestID string
	version   string // the API version the answer is in (Stripe-Version)
	started   bool   // execution began: the answer is saved under the key
	lose      bool   // LoseReply fired: close the connection instead of answering
	hold      *Fault // HoldReply fired: hold the answer until released
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

func (p *PSP) routes() http.Handler {
	mux := http.NewServeMux()
	pi := []string{"latest_charge", "latest_charge.balance_transaction", "customer", "payment_method"}
	list := prefixed("data.", pi)
	rf := []string{"charge", "payment_intent", "balance_transaction", "charge.balance_transaction"}
	ch := []string{"payment_intent", "balance_transaction", "customer"}
	for _, rt := range []route{
		{"POST /v1/payment_intents", stripe.PaymentIntentCreateParams{}, pi, p.createIntent},
		{"GET /v1/payment_intents", stripe.PaymentIntentListParams{}, list, p.listIntents},
		{"GET /v1/payment_intents/search", stripe.PaymentIntentSearchParams{}, list, p.searchIntents},
		{"GET /v1/payment_intents/{id}", stripe.PaymentIntentRetrieveParams{}, pi, p.retrieveIntent},
		{"POST /v1/payment_intents/{id}", stripe.PaymentIntentUpdateParams{}, pi, p.updateIntent},
		{"POST /v1/payment_intents/{id}/confirm", stripe.PaymentIntentConfirmParams{}, pi, p.confirmIntent},
		{"POST /v1/payment_intents/{id}/capture", stripe.PaymentIntentCaptureParams{}, pi, p.captureIntent},
		{"POST /v1/payment_intents/{id}/cancel", stripe.PaymentIntentCancelParams{}, pi, p.cancelIntent},
		{"GET /v1/charges", stripe.ChargeListParams{}, prefixed("data.", ch), p.listCharges},
		{"GET /v1/charges/{id}", stripe.ChargeRetrieveParams{}, ch, p.retrieveCharge},
		{"GET /v1/balance_transactions", stripe.BalanceTransactionListParams{}, []string{"data.source"}, p.listBalanceTxns},
		{"GET /v1/balance_transactions/{id}", stripe.BalanceTransactionRetrieveParams{}, []string{"source"}, p.retrieveBalanceTxn},
		{"GET /v1/account", stripe.AccountRetrieveParams{}, nil, p.retrieveAccount},
		{"GET /v1/payment_methods", stripe.PaymentMethodListParams{}, nil, p.listMethods},
		{"GET /v1/payment_methods/{id}", stripe.PaymentMethodRetrieveParams{}, nil, p.retrieveMethod},
		{"POST /v1/customers", stripe.CustomerCreateParams{}, nil, p.createCustomer},
		{"GET /v1/customers", stripe.CustomerListParams{}, nil, p.listCustomers},
		{"GET /v1/customers/{id}", stripe.CustomerRetrieveParams{}, nil, p.retrieveCustomer},
		{"POST /v1/refunds", stripe.RefundCreateParams{}, rf, p.createRefund},
		{"GET /v1/refunds", stripe.RefundListParams{}, prefixed("data.", rf), p.listRefunds},
		{"GET /v1/refunds/{id}", stripe.RefundRetrieveParams{}, rf, p.retrieveRefund},
		{"GET /v1/events", stripe.EventListParams{}, nil, p.listEvents},
		{"GET /v1/events/{id}", stripe.EventRetrieveParams{}, nil, p.retrieveEvent},
		{"POST /v1/webhook_endpoints", stripe.WebhookEndpointCreateParams{}, nil, p.createEndpoint},
		{"GET /v1/webhook_endpoints", stripe.WebhookEndpointListParams{}, nil, p.listEndpoints},
		{"DELETE /v1/webhook_endpoints/{id}", stripe.WebhookEndpointDeleteParams{}, nil, p.deleteEndpoint},
	} {
		mux.Handle(rt.pattern, p.api(rt.pattern, p.checked(rt)))
	}
	mux.Handle("/", p.api("/", func(c *call) response {
		return errResp(http.StatusNotFound, stripeError{Type: "invalid_request_error",
			Message: "Unrecognized request URL (" + c.r.Method + ": " + c.r.URL.Path + ")."})
	}))
	p.controlRoutes(mux)
	return mux
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
func (p *PSP) checked(rt route) func(*call) response {
	tree := wire.ParamTree(rt.params)
	return func(c *call) response {
		if bad := tree.UnknownParams(c.params); len(bad) > 0 {
			return wire.UnknownParam(bad)
		}
		exp := c.params.Array("expand")
		for _, e := range exp {
			if !oneOf(e, rt.expand) {
				return wire.NotExpandable(e, rt.expand)
			}
		}
		return p.expand(c, rt.h(c), exp)
	}
}

// api wraps a handler in Stripe's layers, in Stripe's order: authentication
// (401) and rate limits (429) before the idempotency layer; validation
// failures are not saved; once execution begins, the answer is saved.
func (p *PSP) api(endpoint string, h func(*call) response) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.enter() {
			http.Error(w, "fakepsp closed", http.StatusServiceUnavailable)
			return
		}
		defer p.leave()
		if !p.pause.Wait(r.Context(), p.ctx) {
			return // client gave up or the PSP closed while paused
		}
		c := &call{p: p, r: r, endpoint: endpoint, requestID: "req_" + randToken(14), idemKey: r.Header.Get(dialect.Keys().Header),
			version: DefaultAPIVersion}
		key, hasKey := dialect.Credential(r)
		if !hasKey {
			p.write(w, c, refuse(core.Refusal{Kind: core.RefuseNoCredential}), false)
			return
		}
		if c.acct = p.accountFor(key); c.acct == nil {
			p.write(w, c, refuse(core.Refusal{Kind: core.RefuseBadCredential, Key: key}), false)
			return
		}
		v, valid := wire.RequestVersion(r)
		if !valid {
			p.write(w, c, wire.InvalidVersion(v), false)
			return
		}
		c.version = v
		prm, bad := wire.ReadParams(r)
		if bad != nil {
			p.write(w, c, *bad, false)
			return
		}
		c.params = prm
		amount, _, _ := prm.Int64("amount")
		if !p.limiter.Allow(key, endpoint) || p.faults.Fire(RateLimit, target{Key: c.idemKey, Amount: amount, Op: opOf(c)}) != nil {
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
// key rules (core/keyed.go), with Stripe's scope: the concrete path, so a key
// used to confirm pi_1 cannot confirm pi_2.
func (p *PSP) idempotent(w http.ResponseWriter, c *call, h func(*call) response) {
	out := core.Keyed{Rules: dialect.Keys(), Window: p.cfg.KeyWindow, Store: c.acct.keys, Lock: &p.mu, Now: p.nowLocked,
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

func (p *PSP) replay(w http.ResponseWriter, c *call, e core.KeyEntry) {
	w.Header().Set("Original-Request", e.RequestID)
	c.requestID = e.RequestID
	p.writeBody(w, c, e.Status, e.Body, true)
}

func (p *PSP) write(w http.ResponseWriter, c *call, resp response, replayed bool) {
	p.writeBody(w, c, resp.Status, encode(withLogURL(c, resp).Body), replayed)
}

// writeBody answers, unless a reply fault says to lose or hold the answer.
func (p *PSP) writeBody(w http.ResponseWriter, c *call, status int, body []byte, replayed bool) {
	p.logCall(c, status, replayed)
	if c.hold != nil {
		select {
		case <-c.hold.Released():
		case <-c.r.Context().Done():
			c.lose = true
		case <-p.ctx.Done():
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
	if v := shouldRetry(status); v != "" {
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
		b, _ = json.Marshal(map[string]any{"error": stripeError{Type: "api_error", Message: "fakepsp: encoding the answer: " + err.Error()}})
	}
	return append(b, '\n')
}

func redact(k string) string { return wire.Redact(k) }

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
