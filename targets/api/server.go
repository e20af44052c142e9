package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// ArrivalHeader carries the load balancer's arrival stamp (unix ns on the LB's
// clock). The LB sets it and strips any copy a client sent.
const ArrivalHeader = "X-Idemcheck-Arrival"

// Config is one API server's configuration.
type Config struct {
	Name      string
	Deadline  time.Duration // from the arrival stamp
	Margin    time.Duration // clock margin for takeover and sweeps
	KeyWindow time.Duration // key record window after completion
	Merchant  string        // default merchant when the body names none
	Mutants   mutant.Set
	Log       *log.Logger
}

// Stats are counters a spec reads to assert what ran.
type Stats struct {
	Requests, Claims, PSPCalls, DeadlineRejects, Takeovers, CompleteRefused, Mismatches, Resolves, Voids, Refunds, AnsweredVoid, AnsweredOK atomic.Int64
}

// Snapshot is Stats as plain numbers.
func (s *Stats) Snapshot() map[string]int64 {
	return map[string]int64{
		"requests": s.Requests.Load(), "claims": s.Claims.Load(), "psp_calls": s.PSPCalls.Load(),
		"deadline_rejects": s.DeadlineRejects.Load(), "takeovers": s.Takeovers.Load(),
		"complete_refused": s.CompleteRefused.Load(), "mismatches": s.Mismatches.Load(),
		"resolves": s.Resolves.Load(), "voids": s.Voids.Load(), "refunds": s.Refunds.Load(),
		"answered_void": s.AnsweredVoid.Load(), "answered_ok": s.AnsweredOK.Load(),
	}
}

// Server runs HANDLE and RESOLVE (Parts 3 and 4).
type Server struct {
	cfg   Config
	clock *storytime.Clock
	ks    *keystore.Store
	lg    *ledger.Ledger
	psp   *PSP
	Stats Stats
}

// NewServer wires a server.
func NewServer(cfg Config, clock *storytime.Clock, ks *keystore.Store, lg *ledger.Ledger, psp *PSP) *Server {
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if cfg.Merchant == "" {
		cfg.Merchant = "m1"
	}
	return &Server{cfg: cfg, clock: clock, ks: ks, lg: lg, psp: psp}
}

func (s *Server) on(m mutant.Switch) bool { return s.cfg.Mutants.On(m) }

func (s *Server) now() int64 { return s.clock.Now().UnixNano() }

// Handler serves the public API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /payments", func(w http.ResponseWriter, r *http.Request) {
		s.Stats.Requests.Add(1)
		// The work outlives a client that gives up: only the deadline stops it.
		a := s.create(context.WithoutCancel(r.Context()), r)
		switch a.Status {
		case history.OutcomeVoid:
			s.Stats.AnsweredVoid.Add(1)
		case history.OutcomeSucceeded:
			s.Stats.AnsweredOK.Add(1)
		}
		write(w, a)
	})
	mux.HandleFunc("POST /payments/resolve", func(w http.ResponseWriter, r *http.Request) {
		write(w, s.resolve(context.WithoutCancel(r.Context()), r))
	})
	mux.HandleFunc("GET /payments/{id}", func(w http.ResponseWriter, r *http.Request) {
		write(w, s.get(r.Context(), r))
	})
	mux.HandleFunc("POST /payments/{id}/refund", func(w http.ResponseWriter, r *http.Request) {
		write(w, s.refund(context.WithoutCancel(r.Context()), r))
	})
	return mux
}

func bearer(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	c, ok := strings.CutPrefix(v, "Bearer ")
	c = strings.TrimSpace(c)
	return c, ok && c != ""
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func unauthorized() Answer {
	return Answer{Code: http.StatusUnauthorized, Status: history.OutcomeError, Error: "missing Authorization: Bearer <caller>"}
}

func unavailable(format string, a ...any) Answer {
	return Answer{Code: http.StatusServiceUnavailable, Status: history.OutcomeError, Error: fmt.Sprintf(format, a...)}
}

// keyHeader reads and checks the Idempotency-Key header.
func keyHeader(r *http.Request) (string, *Answer) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		a := badRequest("missing Idempotency-Key header")
		return "", &a
	}
	if len(key) > MaxKeyLen {
		a := badRequest(fmt.Sprintf("Idempotency-Key header is %d bytes, over the limit of %d", len(key), MaxKeyLen))
		return "", &a
	}
	return key, nil
}

// create is HANDLE.
func (s *Server) create(ctx context.Context, r *http.Request) Answer {
	caller, ok := bearer(r)
	if !ok {
		return unauthorized()
	}
	key, bad := keyHeader(r)
	if bad != nil {
		return *bad
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10+1))
	if err != nil {
		return badRequest("body: " + err.Error())
	}
	if len(body) > 64<<10 {
		return Answer{Code: http.StatusRequestEntityTooLarge, Status: history.OutcomeError, Error: "body over 64 KiB"}
	}
	req, err := ParseRequest(body)
	if err != nil {
		return badRequest(err.Error())
	}
	if req.Merchant == "" {
		req.Merchant = s.cfg.Merchant
	}
	stamp, err := strconv.ParseInt(r.Header.Get(ArrivalHeader), 10, 64)
	if err != nil {
		return badRequest("missing or bad " + ArrivalHeader + ": send through the load balancer")
	}
	// 1. The deadline counts from the LB's stamp; a request that starts late
	// runs nothing.
	deadline := stamp + int64(s.cfg.Deadline)
	now := s.now()
	if !s.on(mutant.NoDeadline) && now > deadline {
		s.Stats.DeadlineRejects.Add(1)
		return unavailable("deadline passed %v before the request started: nothing ran", time.Duration(now-deadline))
	}
	scope := Scope(caller, key, !s.on(mutant.KeyNotScoped))
	fp := Fingerprint(req)
	if s.on(mutant.FingerprintRawBytes) {
		fp = RawFingerprint(body)
	}
	owner := s.cfg.Name + ":" + randHex(6)
	// 2. The claim: IN_PROGRESS, owner, in_progress_until = stamp + deadline;
	// it expires (takeover) at lease + margin.
	held, err := s.ks.Claim(ctx, scope, keystore.InProgress, fp, owner, now, deadline, deadline+int64(s.cfg.Margin))
	if err != nil {
		return unavailable("key store: %v; retry with the same key", err)
	}
	if held != nil {
		return s.repeat(ctx, held, fp)
	}
	s.Stats.Claims.Add(1)
	if err := failpoint.Hit(AfterClaim); err != nil {
		return unavailable("%v", err)
	}
	// 3. The durable guard, before any external call.
	pid := PaymentID(scope)
	if s.on(mutant.NoDurableGuard) {
		pid = "pay_" + randHex(8)
	}
	p := ledger.Payment{ID: pid, Caller: caller, Key: key, Fingerprint: fp, Amount: req.Amount, Currency: req.Currency,
		Merchant: req.Merchant, Method: req.PaymentMethod, OrderID: req.OrderID, State: ledger.Pending,
		PSPKey: ChargeKey(pid), DeadlineAt: deadline}
	row, err := s.lg.InsertPending(ctx, p)
	switch {
	case errors.Is(err, ledger.ErrConflict) && s.on(mutant.CheckThenInsert):
		// The mutant believes its own earlier check and carries on.
	case errors.Is(err, ledger.ErrConflict):
		return s.fromRow(ctx, scope, owner, fp, row, deadline)
	case err != nil:
		return unavailable("ledger: %v; retry with the same key", err)
	}
	if err := failpoint.Hit(AfterPendingInsert); err != nil {
		return unavailable("%v", err)
	}
	return s.charge(ctx, scope, owner, p, deadline, false)
}

// repeat answers a request whose claim found a live record.
func (s *Server) repeat(ctx context.Context, rec *keystore.Record, fp string) Answer {
	if rec.State == keystore.Void {
		return answer(history.OutcomeVoid, rec.PaymentID, "this key was voided by a resolve call: use a new key")
	}
	if rec.Fingerprint != fp && !s.on(mutant.NoFingerprintCheck) {
		s.Stats.Mismatches.Add(1)
		return answer(history.OutcomeMismatch, "", "Idempotency-Key reused with a different request")
	}
	switch rec.State {
	case keystore.InProgress:
		return answer(history.OutcomeInProgress, rec.PaymentID, "a request with this key is in progress")
	case keystore.Done:
		return decodeStored(rec.Status, rec.Body)
	case keystore.Pointer:
		p, err := s.lg.Get(ctx, rec.PaymentID)
		if err != nil {
			return unavailable("ledger: %v", err)
		}
		if p == nil {
			return unavailable("key record points at missing payment %s", rec.PaymentID)
		}
		return Render(p)
	}
	return unavailable("key record in unknown state %q", rec.State)
}

// fromRow answers (or takes over) when the durable guard already holds
// (caller, key): the key record was absent, expired or taken over.
func (s *Server) fromRow(ctx context.Context, scope, owner, fp string, row *ledger.Payment, deadline int64) Answer {
	if row == nil {
		return unavailable("ledger: conflict but no row")
	}
	var a Answer
	switch {
	case row.State == ledger.Void:
		a = Render(row)
	case row.Fingerprint != fp && !s.on(mutant.NoFingerprintCheck):
		s.Stats.Mismatches.Add(1)
		// Rewrite the record we claimed with the row's truth, so the next
		// repeat is answered from the key store again.
		s.completeFromRow(ctx, scope, owner, row)
		return answer(history.OutcomeMismatch, "", "Idempotency-Key reused with a different request")
	case row.State == ledger.Pending || row.State == ledger.Unknown:
		// Takeover: the previous owner's lease and margin passed, and the
		// durable row says how far it got. Carry on with the derived key.
		s.Stats.Takeovers.Add(1)
		return s.charge(ctx, scope, owner, *row, deadline, true)
	default:
		a = Render(row)
	}
	// Finish what the first attempt started: rewrite the key record.
	if refused := s.completeFromRow(ctx, scope, owner, row); refused != nil {
		return *refused
	}
	return a
}

// completeFromRow stores the row's answer in the key record, only if owner = me.
// It returns the answer to give instead when the completion was refused.
func (s *Server) completeFromRow(ctx context.Context, scope, owner string, row *ledger.Payment) *Answer {
	a := Render(row)
	state := keystore.Done
	if row.State == ledger.Pending || row.State == ledger.Unknown {
		state = keystore.Pointer
	}
	if row.State == ledger.Void {
		state = keystore.Void
	}
	exp := s.now() + int64(s.cfg.KeyWindow)
	rec, err := s.ks.Complete(ctx, scope, owner, state, row.ID, a.Code, a.body(), exp, row.Fingerprint, s.on(mutant.CompleteUnconditional))
	if err != nil {
		s.cfg.Log.Printf("complete %s: %v", scope, err)
		return nil
	}
	if rec != nil {
		s.Stats.CompleteRefused.Add(1)
		ans := s.repeat(ctx, rec, row.Fingerprint)
		return &ans
	}
	return nil
}

// realUntil converts a tier-clock instant to a real-time deadline.
func (s *Server) realUntil(t int64) time.Time {
	return time.Now().Add(time.Duration(t - s.now()))
}

// charge is steps 4 to 6: the PSP call with the derived key, the ledger move
// and the conditional completion.
func (s *Server) charge(ctx context.Context, scope, owner string, p ledger.Payment, deadline int64, takeover bool) Answer {
	key := p.PSPKey
	if key == "" {
		key = ChargeKey(p.ID)
	}
	if takeover && s.on(mutant.TakeoverNewPSPKey) {
		key = p.ID + ":attempt-" + randHex(3) + ":psp"
	}
	res := Result{Verdict: Unknown, Message: "not sent"}
	sent := false
	if err := failpoint.Hit(BeforePSPCall); err != nil {
		res.Message = err.Error()
	} else if s.on(mutant.NoDeadline) || s.now() <= deadline {
		cctx, cancel := context.WithDeadline(ctx, s.realUntil(deadline))
		if s.on(mutant.NoDeadline) {
			cctx, cancel = context.WithTimeout(ctx, 10*s.cfg.Deadline)
		}
		s.Stats.PSPCalls.Add(1)
		var err error
		res, err = s.psp.Charge(cctx, key, p.Amount, p.Currency, p.Method, map[string]string{
			"payment_id": p.ID, "intent": Scope(p.Caller, p.Key, true)})
		cancel()
		sent = true
		if err != nil {
			s.cfg.Log.Printf("psp charge %s: %v", key, err)
		}
		if err := failpoint.Hit(AfterPSPCall); err != nil {
			res = Result{Verdict: Unknown, Message: err.Error()}
		}
	}
	late := !s.on(mutant.NoDeadline) && s.now() > deadline
	to, from := ledger.Unknown, []string{ledger.Pending}
	switch {
	case res.Verdict == Succeeded && !late:
		to, from = ledger.Succeeded, []string{ledger.Pending, ledger.Unknown}
	case res.Verdict == Failed && sent && !late:
		to, from = ledger.Failed, []string{ledger.Pending, ledger.Unknown}
	}
	if err := failpoint.Hit(BeforeComplete); err != nil {
		return unavailable("%v", err)
	}
	mv := ledger.Move{ID: p.ID, From: from, To: to, Charge: res.ChargeID}
	if s.on(mutant.RandomEventID) {
		mv.EventSuffix = ":" + randHex(4) // a random event id: another Region cannot re-create it (G2b)
	}
	moved, err := s.lg.Apply(ctx, mv, nil)
	if err != nil && !errors.Is(err, ledger.ErrUnknownOutcome) {
		return unavailable("ledger: %v", err)
	}
	row := &p
	if moved {
		p.State, p.PSPCharge = to, res.ChargeID
	} else {
		// Not moved (someone else did, or the commit's fate is unknown): the
		// row says what is true now.
		if row, err = s.lg.Get(ctx, p.ID); err != nil || row == nil {
			return unavailable("ledger: read %s: %v", p.ID, err)
		}
	}
	if refused := s.completeFromRow(ctx, scope, owner, row); refused != nil {
		return *refused
	}
	return Render(row)
}

// get reads a payment by id, for its own caller only.
func (s *Server) get(ctx context.Context, r *http.Request) Answer {
	caller, ok := bearer(r)
	if !ok {
		return unauthorized()
	}
	p, err := s.lg.Get(ctx, r.PathValue("id"))
	if err != nil {
		return unavailable("ledger: %v", err)
	}
	if p == nil || p.Caller != caller {
		return Answer{Code: http.StatusNotFound, Status: history.OutcomeError, Error: "no such payment"}
	}
	return Render(p)
}
