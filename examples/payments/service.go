// Package payments is a small payment service, written to show an incident
// suite against a service of your own (payments_test.go). POST /pay charges
// a card through a Stripe-like PSP under the client's Idempotency-Key.
//
// It has one deliberate bug, switched on by ForgetOnTimeout: when the PSP
// does not answer in time, the service tells the client the payment failed
// and forgets the key, though the PSP may well have charged. The client's
// retry then charges the card a second time.
package payments

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Service is the payment service.
type Service struct {
	DB *pgxpool.Pool
	// PSP is the PSP's base URL, PSPKey its secret key.
	PSP, PSPKey string
	// PSPTimeout bounds one PSP call; default 1 s.
	PSPTimeout time.Duration
	// ForgetOnTimeout is the bug (see the package comment).
	ForgetOnTimeout bool
}

// Migrate creates the service's table: one row per idempotency key.
func Migrate(ctx context.Context, db *pgxpool.Pool) error {
	_, err := db.Exec(ctx, `CREATE TABLE IF NOT EXISTS payments (
		key text PRIMARY KEY, fingerprint text NOT NULL, payment_id text NOT NULL,
		amount bigint NOT NULL, currency text NOT NULL, state text NOT NULL)`)
	return err
}

// request is what a client asks for.
type request struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Order    string `json:"order"`
}

type answer struct {
	Status    string `json:"status"`
	PaymentID string `json:"payment_id,omitempty"`
	Error     string `json:"error,omitempty"`
}

// The states of a row; pending means the PSP's outcome is not known yet.
const (
	pending   = "pending"
	succeeded = "succeeded"
	failed    = "failed"
)

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/pay" {
		reply(w, http.StatusNotFound, answer{Status: "error", Error: "POST /pay only"})
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		reply(w, http.StatusBadRequest, answer{Status: "error", Error: "missing Idempotency-Key"})
		return
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.Amount <= 0 || req.Currency == "" {
		reply(w, http.StatusBadRequest, answer{Status: "error", Error: "want {amount > 0, currency, order}"})
		return
	}
	code, a := s.pay(r.Context(), key, req)
	reply(w, code, a)
}

// pay claims the key, or finds the payment an earlier copy made, and charges
// it at most once: the PSP key is the payment id, so a retry of the PSP call
// is answered from the PSP's idempotency store, never charged again.
func (s *Service) pay(ctx context.Context, key string, req request) (int, answer) {
	fp := fingerprint(req)
	id := newID()
	tag, err := s.DB.Exec(ctx, `INSERT INTO payments (key, fingerprint, payment_id, amount, currency, state)
		VALUES ($1, $2, $3, $4, $5, 'pending') ON CONFLICT (key) DO NOTHING`, key, fp, id, req.Amount, req.Currency)
	if err != nil {
		return http.StatusServiceUnavailable, answer{Status: "error", Error: err.Error()}
	}
	if tag.RowsAffected() == 0 {
		var gotFP, state string
		err := s.DB.QueryRow(ctx, `SELECT fingerprint, payment_id, state FROM payments WHERE key = $1`, key).Scan(&gotFP, &id, &state)
		if errors.Is(err, pgx.ErrNoRows) {
			return http.StatusConflict, answer{Status: "in_progress"} // forgotten under us: the client retries
		}
		if err != nil {
			return http.StatusServiceUnavailable, answer{Status: "error", Error: err.Error()}
		}
		switch {
		case gotFP != fp:
			return http.StatusUnprocessableEntity, answer{Status: "mismatch", Error: "this key was used for another request"}
		case state == succeeded:
			return http.StatusOK, answer{Status: succeeded, PaymentID: id}
		case state == failed:
			return http.StatusPaymentRequired, answer{Status: failed, PaymentID: id}
		}
		// pending: an earlier copy's PSP call has no known outcome. Find
		// what it did; if the PSP holds nothing (or cannot say), charge under
		// the same PSP key, which the PSP never charges twice.
		switch st, err := s.lookup(ctx, id); {
		case err != nil || st == "":
		case st == succeeded:
			return s.settle(ctx, key, id, true)
		case st == "requires_payment_method" || st == "canceled":
			return s.settle(ctx, key, id, false)
		default:
			return http.StatusAccepted, answer{Status: "processing", PaymentID: id}
		}
	}
	charged, err := s.charge(ctx, id, req)
	switch {
	case err != nil && s.ForgetOnTimeout:
		// The bug: a timeout is read as a decline, and the key is freed so
		// the client "can try again".
		_, _ = s.DB.Exec(context.WithoutCancel(ctx), `DELETE FROM payments WHERE key = $1`, key)
		return http.StatusPaymentRequired, answer{Status: failed, PaymentID: id, Error: err.Error()}
	case err != nil:
		return http.StatusAccepted, answer{Status: "processing", PaymentID: id}
	}
	return s.settle(ctx, key, id, charged)
}

// settle records a known outcome under the key and answers it.
func (s *Service) settle(ctx context.Context, key, id string, charged bool) (int, answer) {
	state, code := succeeded, http.StatusOK
	if !charged {
		state, code = failed, http.StatusPaymentRequired
	}
	if _, err := s.DB.Exec(ctx, `UPDATE payments SET state = $2 WHERE key = $1`, key, state); err != nil {
		return http.StatusAccepted, answer{Status: "processing", PaymentID: id}
	}
	return code, answer{Status: state, PaymentID: id}
}

func fingerprint(r request) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d|%s|%s", r.Amount, r.Currency, r.Order)))
	return hex.EncodeToString(sum[:8])
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "pay_" + hex.EncodeToString(b)
}

func reply(w http.ResponseWriter, code int, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(a)
}
