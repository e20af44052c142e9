package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// adyenPayments is the API half of the Adyen-shaped sizing dialect
// (dialect_test.go), written only against core's exported API: it parses
// Adyen-shaped JSON into core.Ops' operations and renders their outcomes
// (resultCode, pspReference, Adyen's error body). It writes no state check,
// amount check, money move or ground truth: that is the core's. A sizing
// check of the seam, not Adyen's dialect.
type adyenPayments struct {
	ops  core.Ops
	keys *core.KeyStore
	book *core.Book[*adyenPayment]
	mu   *sync.Mutex
	seq  int
}

// adyenPayment is what the dialect keeps of a payment: its merchant reference.
type adyenPayment struct {
	core.Payment
	reference string
}

func (a *adyenPayment) Core() *core.Payment { return &a.Payment }

type adyenAmount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency"`
}

func (s *adyenPayments) ref() string { s.seq++; return fmt.Sprintf("PSP%013d", s.seq) } // under the lock

func (s *adyenPayments) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /payments", s.keyed(s.pay))
	mux.HandleFunc("POST /payments/{psp}/captures", s.keyed(s.capture))
	mux.HandleFunc("POST /payments/{psp}/refunds", s.keyed(s.refund))
	return mux
}

// keyed takes a request through core's key rules with Adyen's limits.
func (s *adyenPayments) keyed(h func(r *http.Request, body []byte, key string) core.Reply) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key := r.Header.Get("Idempotency-Key")
		run := func() core.Reply { return h(r, body, key) }
		var reply core.Reply
		if key == "" {
			reply = run()
		} else {
			out := core.Keyed{Rules: adyenLike{}.Keys(), Window: adyenLike{}.Keys().Window, Store: s.keys, Lock: s.mu,
				Now: time.Now, Key: key, Scope: r.URL.Path, Fingerprint: string(body)}.
				Do(func() (int, []byte, string, bool) {
					reply = run()
					b, _ := json.Marshal(reply.Body)
					return reply.Status, b, "", true
				})
			switch {
			case out.Refusal != nil:
				reply = adyenLike{}.Refuse(*out.Refusal)
			case out.Replay != nil:
				w.Header().Set("Idempotent-Replayed", "true")
				w.WriteHeader(out.Replay.Status)
				_, _ = w.Write(out.Replay.Body)
				return
			}
		}
		w.WriteHeader(reply.Status)
		_ = json.NewEncoder(w).Encode(reply.Body)
	}
}

func adyenError(status int, code, msg string) core.Reply {
	return core.Reply{Status: status, Body: map[string]any{"status": status, "errorCode": code, "message": msg, "errorType": "validation"}}
}

// pay authorises (and, without manual capture, captures) a card payment.
func (s *adyenPayments) pay(_ *http.Request, body []byte, key string) core.Reply {
	var req struct {
		Amount        adyenAmount `json:"amount"`
		Reference     string      `json:"reference"`
		PaymentMethod struct {
			Type, HolderName string
		} `json:"paymentMethod"`
		AdditionalData map[string]string `json:"additionalData"`
	}
	if json.Unmarshal(body, &req) != nil || req.Amount.Value < 1 {
		return adyenError(422, "137", "Invalid amount specified")
	}
	p := &adyenPayment{Payment: core.Payment{Amount: req.Amount.Value, Currency: req.Amount.Currency, Method: req.PaymentMethod.Type,
		Manual: req.AdditionalData["manualCapture"] == "true", Metadata: core.MetadataOf(map[string]string{"payment_id": req.Reference})}, reference: req.Reference}
	s.ops.Create(&p.Payment, core.Hooks{Locked: func(core.Outcome) { p.ID = s.ref(); s.book.Add(p) }})
	out := s.ops.Confirm(&p.Payment, core.Confirm{Key: key, Method: p.Method, Declined: req.PaymentMethod.HolderName == "REFUSED",
		AttemptID: func() string { return p.ID }}, core.Hooks{})
	switch out.Reason {
	case core.ReasonInternal:
		return adyenError(500, "901", "Internal error")
	case core.ReasonDeclined:
		return core.Reply{Status: 200, Body: map[string]any{"pspReference": p.ID, "resultCode": "Refused", "merchantReference": p.reference}}
	}
	return core.Reply{Status: 200, Body: map[string]any{"pspReference": p.ID, "resultCode": "Authorised", "merchantReference": p.reference,
		"amount": adyenAmount{p.Amount, p.Currency}}}
}

func (s *adyenPayments) payment(r *http.Request, body []byte) (*adyenPayment, adyenAmount, *core.Reply) {
	var req struct {
		Amount adyenAmount `json:"amount"`
	}
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	p := s.book.Get(r.PathValue("psp"))
	s.mu.Unlock()
	if p == nil {
		e := adyenError(422, "167", "Original pspReference required for this operation")
		return nil, req.Amount, &e
	}
	return p, req.Amount, nil
}

func (s *adyenPayments) capture(r *http.Request, body []byte, key string) core.Reply {
	p, amount, bad := s.payment(r, body)
	if bad != nil {
		return *bad
	}
	v, refused := s.ops.CaptureAmount(&p.Payment, amount.Value, false)
	if refused.Reason != core.Done {
		return adyenError(422, "167", "Capture amount exceeds authorised amount")
	}
	var ref string
	out := s.ops.Capture(&p.Payment, core.Capture{Key: key, Amount: v}, core.Hooks{Locked: func(core.Outcome) { ref = s.ref() }})
	if out.Reason != core.Done {
		return adyenError(422, "167", "Payment not authorised")
	}
	return core.Reply{Status: 201, Body: map[string]any{"pspReference": ref, "paymentPspReference": p.ID, "status": "received", "amount": amount}}
}

func (s *adyenPayments) refund(r *http.Request, body []byte, key string) core.Reply {
	p, amount, bad := s.payment(r, body)
	if bad != nil {
		return *bad
	}
	out := s.ops.Refund(&p.Payment, core.Refund{Key: key, Amount: amount.Value, RefundID: s.ref}, core.Hooks{})
	if out.Reason != core.Done {
		return adyenError(422, "137", fmt.Sprintf("Refund refused: %d left", out.Left))
	}
	return core.Reply{Status: 201, Body: map[string]any{"pspReference": out.RefundID, "paymentPspReference": p.ID, "status": "received", "amount": amount}}
}

// TestOperationsFitAnAdyenShapedDialect: through an Adyen-shaped API the
// core's operations authorise, capture in part and refund; a replay under
// the same Idempotency-Key answers the saved result and moves nothing; a
// refund beyond what was captured is refused; a refused card moves
// nothing. The ground truth is exact.
func TestOperationsFitAnAdyenShapedDialect(t *testing.T) {
	mu := &sync.Mutex{}
	truth := core.NewGroundTruth(nil, nil)
	s := &adyenPayments{ops: core.Ops{Ctx: context.Background(), Lock: mu, Now: time.Now, Faults: core.NewFaults(func(bool) {}, nil), Truth: truth},
		keys: core.NewKeyStore(), book: core.NewBook[*adyenPayment](), mu: mu}
	srv := httptest.NewServer(s.routes())
	defer srv.Close()
	post := func(path, key, body string) (int, map[string]any, bool) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		raw, _ := io.ReadAll(resp.Body)
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&m); err != nil {
			t.Fatalf("%s: %q", path, raw)
		}
		return resp.StatusCode, m, resp.Header.Get("Idempotent-Replayed") == "true"
	}
	pay := `{"amount":{"value":1130,"currency":"EUR"},"reference":"pay_1","paymentMethod":{"type":"scheme"},"additionalData":{"manualCapture":"true"}}`
	st, a, _ := post("/payments", "k1", pay)
	psp, _ := a["pspReference"].(string)
	if st != 200 || a["resultCode"] != "Authorised" || psp == "" {
		t.Fatalf("authorise: %d %v", st, a)
	}
	if st, b, replayed := post("/payments", "k1", pay); st != 200 || !replayed || b["pspReference"] != psp {
		t.Fatalf("replay: %d %v replayed=%v", st, b, replayed)
	}
	if st, b, _ := post("/payments/"+psp+"/captures", "k2", `{"amount":{"value":1000,"currency":"EUR"}}`); st != 201 || b["paymentPspReference"] != psp {
		t.Fatalf("capture: %d %v", st, b)
	}
	if st, b, _ := post("/payments/"+psp+"/refunds", "k3", `{"amount":{"value":1100,"currency":"EUR"}}`); st != 422 || b["errorCode"] != "137" {
		t.Fatalf("refund beyond the capture: %d %v", st, b)
	}
	if st, b, _ := post("/payments/"+psp+"/refunds", "k4", `{"amount":{"value":400,"currency":"EUR"}}`); st != 201 || b["paymentPspReference"] != psp {
		t.Fatalf("refund: %d %v", st, b)
	}
	if st, b, _ := post("/payments", "k5", `{"amount":{"value":500,"currency":"EUR"},"reference":"pay_2","paymentMethod":{"type":"scheme","holderName":"REFUSED"}}`); st != 200 || b["resultCode"] != "Refused" {
		t.Fatalf("refused card: %d %v", st, b)
	}
	ops := truth.Ops("")
	if len(ops) != 2 || ops[0].Op != "charge" || *ops[0].Input.Amount != 1000 || ops[0].Input.PSPKey != "k2" || ops[0].PaymentID != "pay_1" ||
		ops[0].Output.ChargeID != psp || ops[1].Op != "refund" || *ops[1].Input.Amount != 400 || ops[1].Input.PSPKey != "k4" {
		t.Fatalf("ground truth %+v", ops)
	}
}
