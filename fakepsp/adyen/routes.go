package adyen

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Versions are the Checkout API versions served, each under its own path
// prefix as the official libraries call them (/v71/payments): Adyen's
// documented ones, from v37 to v72. A wildcard version would collide with
// the control API's /_psp/.
const firstVersion, lastVersion = 37, 72

// Routes mounts Adyen's Checkout routes (core.Server): POST /vNN/payments
// and the modifications /vNN/payments/{pspReference}/{captures|refunds|
// cancels|reversals}. The call log names a route by its v71 pattern.
func (s *server) Routes(mux *http.ServeMux) {
	for v := firstVersion; v <= lastVersion; v++ {
		pay, modify := fmt.Sprintf("POST /v%d/payments", v), fmt.Sprintf("POST /v%d/payments/{psp}/{kind}", v)
		mux.Handle(pay, s.serve(routePay, func(a *account, r *http.Request, body []byte, key string) Answer {
			return a.api.Pay(body, key)
		}))
		mux.Handle(modify, s.serve(routeModify, func(a *account, r *http.Request, body []byte, key string) Answer {
			return a.api.Modify(r.PathValue("kind"), r.PathValue("psp"), body, key)
		}))
	}
	mux.Handle("/", s.serve("/", func(*account, *http.Request, []byte, string) Answer {
		return Answer{Reply: Err(http.StatusNotFound, "000", "Not found", "validation")}
	}))
}

// The routes as the call log and the rate limits name them.
const (
	routePay    = "POST /v71/payments"
	routeModify = "POST /v71/payments/{psp}/{kind}"
)

// call is one request's record for the call log.
type call struct {
	endpoint, path, key string
	executed, replayed  bool
}

// serve takes a request through Adyen's layers: authentication, the rate
// limit, the Idempotency-Key rules, the operation, and the faults that
// lose, hold or replace its answer.
func (s *server) serve(endpoint string, h func(a *account, r *http.Request, body []byte, key string) Answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.h.Enter() {
			http.Error(w, "fakepsp closed", http.StatusServiceUnavailable)
			return
		}
		defer s.h.Leave()
		if !s.h.Wait(r.Context()) {
			return
		}
		// Cloned: slices of the request's lines would keep whole lines
		// alive in the call log and the key records (issue 54).
		c := call{endpoint: endpoint, path: strings.Clone(r.URL.Path), key: strings.Clone(r.Header.Get(Keys.Header))}
		cred, ok := Dialect{}.Credential(r)
		if !ok {
			s.write(w, c, Dialect{}.Refuse(core.Refusal{Kind: core.RefuseNoCredential}))
			return
		}
		a := s.account(cred)
		if a == nil {
			s.write(w, c, Dialect{}.Refuse(core.Refusal{Kind: core.RefuseBadCredential, Key: cred}))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if !s.h.Allow(cred, endpoint) || s.ops.Faults.Fire(core.RateLimit, target(r, body, c.key)) != nil {
			s.write(w, c, Dialect{}.Refuse(core.Refusal{Kind: core.RefuseRateLimited}))
			return
		}
		if c.key == "" {
			ans := h(a, r, body, "")
			c.executed = ans.Began
			s.answer(w, r, c, ans)
			return
		}
		var ans Answer
		scope, fp := Bind(r, body)
		out := core.Keyed{Rules: Keys, Window: s.h.KeyWindow(), Store: a.keys, Spill: s.ops.Spill, Lock: s.mu, Now: s.ops.Now,
			Key: c.key, Scope: scope, Fingerprint: fp}.Do(func() (int, []byte, string, bool) {
			ans = h(a, r, body, c.key)
			// A fault after the effect answers this client an internal
			// error, but the key keeps what the payment came to: Adyen
			// tells clients to retry a transient error under the same key,
			// and a retry of a request it processed gets that request's
			// result ("already processed ... returned without duplication").
			raw, _ := json.Marshal(ans.Reply.Body)
			// An answer refused before the operation ran (a validation
			// error, a fault before the effect) is not kept: a retry runs.
			return ans.Reply.Status, raw, "", ans.Began
		})
		switch {
		case out.Refusal != nil:
			s.write(w, c, Dialect{}.Refuse(*out.Refusal))
		case out.Replay != nil:
			c.replayed = true
			s.writeRaw(w, c, out.Replay.Status, out.Replay.Body)
		default:
			c.executed = ans.Began
			s.answer(w, r, c, ans)
		}
	})
}

// answer writes ans unless a fault after the effect loses, holds or
// replaces it.
func (s *server) answer(w http.ResponseWriter, r *http.Request, c call, ans Answer) {
	a := ans.After
	if a.Withheld(r.Context(), s.ops.Ctx) {
		s.log(c, 0)
		core.DropConnection(w)
		return
	}
	if a.Refuse {
		ans.Reply = internalError()
	}
	s.write(w, c, ans.Reply)
}

func (s *server) write(w http.ResponseWriter, c call, r core.Reply) {
	raw, _ := json.Marshal(r.Body)
	s.writeRaw(w, c, r.Status, raw)
}

// writeRaw writes an answer with Adyen's headers: the Idempotency-Key
// echoed (how Adyen says a request was keyed), and Transient-Error on a
// 704 (retry later under the same key). Adyen marks no replay: a retry's
// answer is the first one, as it was.
func (s *server) writeRaw(w http.ResponseWriter, c call, status int, body []byte) {
	s.log(c, status)
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	if c.key != "" {
		h.Set(Keys.Header, c.key)
	}
	if status == http.StatusUnprocessableEntity && isInProgress(body) {
		h.Set(TransientHeader, "true")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *server) log(c call, status int) {
	s.h.LogCall(core.Call{Endpoint: c.endpoint, Path: c.path, IdempotencyKey: c.key, Status: status, Replayed: c.replayed, Executed: c.executed})
}

func isInProgress(body []byte) bool {
	var e ServiceError
	return json.Unmarshal(body, &e) == nil && e.ErrorCode == CodeInProgress
}

func internalError() core.Reply {
	return Err(http.StatusInternalServerError, CodeInternal, "Internal server error", "internal")
}

// target is what a fault before anything ran matches a request on, as
// Stripe's does: its key, the amount it names and the effect it asks for
// (a payment charges, or authorises when captured later; a capture
// charges; a refund or reversal refunds; a cancel cancels).
func target(r *http.Request, body []byte, key string) core.Target {
	var req struct {
		Amount         *Amount           `json:"amount"`
		AdditionalData map[string]string `json:"additionalData"`
		CaptureDelay   *int              `json:"captureDelayHours"`
	}
	_ = json.Unmarshal(body, &req)
	t := core.Target{Key: key}
	if req.Amount != nil {
		t.Amount = req.Amount.Value
	}
	switch r.PathValue("kind") {
	case "":
		t.Op = "charge"
		if (PaymentRequest{AdditionalData: req.AdditionalData, CaptureDelayHours: req.CaptureDelay}).Manual() {
			t.Op = "authorize"
		}
	case ModCapture:
		t.Op = "charge"
	case ModRefund, ModReversal:
		t.Op = "refund"
	case ModCancel:
		t.Op = "cancel"
	}
	return t
}
