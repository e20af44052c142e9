package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
)

// Refund statuses (not checker outcomes: the PSP's log is the refund truth).
const (
	RefundDone    = "refunded"
	RefundPending = "refund_pending"
)

// refund undoes a succeeded payment. The intent to refund is recorded
// (REQUESTED, with the derived key) before the first call, so a timeout is an
// unknown the resolver settles with the same key, never a failure.
func (s *Server) refund(ctx context.Context, r *http.Request) Answer {
	caller, ok := bearer(r)
	if !ok {
		return unauthorized()
	}
	id := r.PathValue("id")
	p, err := s.lg.Get(ctx, id)
	if err != nil {
		return unavailable("ledger: %v", err)
	}
	if p == nil || p.Caller != caller {
		return Answer{Code: http.StatusNotFound, Status: history.OutcomeError, Error: "no such payment"}
	}
	if p.State != ledger.Succeeded {
		return Answer{Code: http.StatusConflict, PaymentID: id, Status: history.OutcomeError, Error: "only a succeeded payment can be refunded, this one is " + p.State}
	}
	var body struct {
		Amount int64 `json:"amount"`
	}
	if b, _ := io.ReadAll(io.LimitReader(r.Body, 4096)); len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &body); err != nil || body.Amount < 0 || body.Amount > p.Amount {
			return badRequest(fmt.Sprintf("body: want {\"amount\": 1..%d} or nothing", p.Amount))
		}
	}
	key := RefundKey(id)
	moved, err := s.lg.SetRefundAmount(ctx, id, "", ledger.RefundRequested, key, "", body.Amount)
	if err != nil {
		return unavailable("ledger: %v", err)
	}
	if !moved {
		return refundAnswer(id, p.RefundState)
	}
	s.Stats.Refunds.Add(1)
	res := Result{Verdict: Unknown}
	if err := failpoint.Hit(BeforeRefundCall); err == nil {
		cctx, cancel := context.WithTimeout(ctx, s.cfg.Deadline)
		res, err = s.psp.Refund(cctx, key, p.PSPCharge, body.Amount, map[string]string{"payment_id": id, "intent": Scope(p.Caller, p.Key, true), "refund_request": RefundKey(id)})
		cancel()
		if err != nil {
			s.cfg.Log.Printf("psp refund %s: %v", key, err)
		}
	}
	if res.Verdict == Succeeded {
		if _, err := s.lg.SetRefund(ctx, id, ledger.RefundRequested, ledger.Refunded, "", res.RefundID); err != nil {
			return unavailable("ledger: %v", err)
		}
		return refundAnswer(id, ledger.Refunded)
	}
	// Unknown (or refused): record it as unknown; the resolver retries with
	// the same key until the PSP settles it.
	if _, err := s.lg.SetRefund(ctx, id, ledger.RefundRequested, ledger.RefundUnknown, "", ""); err != nil {
		return unavailable("ledger: %v", err)
	}
	return refundAnswer(id, ledger.RefundUnknown)
}

func refundAnswer(id, state string) Answer {
	if state == ledger.Refunded {
		return Answer{Code: http.StatusOK, PaymentID: id, Status: RefundDone}
	}
	return Answer{Code: http.StatusAccepted, PaymentID: id, Status: RefundPending}
}
