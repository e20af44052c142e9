package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// asResolve maps an answer to RESOLVE's vocabulary: still confirming is
// "processing" whether the key is claimed or the payment pending.
func asResolve(a Answer) Answer {
	switch a.Status {
	case history.OutcomeInProgress, history.OutcomeProcessing:
		a.Status, a.Error = history.OutcomeProcessing, "still confirming"
	case history.OutcomeVoid:
		a.Error = "not found, and it never will be: make a new key"
	}
	a.Code = http.StatusOK
	return a
}

// resolve is RESOLVE (docs/SCENARIOS.md#B2): "did it happen?" that changes the state. An
// absent key becomes VOID in both stores, so a late original finds it.
func (s *Server) resolve(ctx context.Context, r *http.Request) Answer {
	caller, ok := bearer(r)
	if !ok {
		return unauthorized()
	}
	key, bad := keyHeader(r)
	if bad != nil {
		return *bad
	}
	s.Stats.Resolves.Add(1)
	scope := Scope(caller, key, !s.on(mutant.KeyNotScoped))
	now := s.now()
	rec, err := s.ks.Get(ctx, scope, now)
	if err != nil {
		return unavailable("key store: %v", err)
	}
	row, err := s.lg.GetByKey(ctx, caller, key)
	if err != nil {
		return unavailable("ledger: %v", err)
	}
	if row != nil {
		return asResolve(Render(row))
	}
	if rec != nil {
		return asResolve(s.repeat(ctx, rec, rec.Fingerprint))
	}
	// The window a late original can race into.
	if err := failpoint.Hit(BeforeResolveCommit); err != nil {
		return unavailable("%v", err)
	}
	voided := asResolve(answer(history.OutcomeVoid, "", ""))
	if s.on(mutant.ResolveReadOnly) {
		return voided
	}
	pid := PaymentID(scope)
	exp := now + int64(s.cfg.KeyWindow)
	if s.on(mutant.NonAtomicResolve) {
		// Its read said absent, so it writes without a condition.
		if err := s.ks.SetBlind(ctx, scope, keystore.Record{State: keystore.Void, ExpiresAt: exp, PaymentID: pid}); err != nil {
			return unavailable("key store: %v", err)
		}
		if _, err := s.lg.InsertVoid(ctx, "void_"+randHex(6), caller, key); err != nil && !errors.Is(err, ledger.ErrConflict) {
			return unavailable("ledger: %v", err)
		}
		s.Stats.Voids.Add(1)
		return voided
	}
	owner := s.cfg.Name + ":resolve:" + randHex(6)
	held, err := s.ks.Claim(ctx, scope, keystore.Void, "", owner, now, 0, exp)
	if err != nil {
		return unavailable("key store: %v", err)
	}
	if held != nil {
		// The late original claimed first: it wins, and the app keeps waiting.
		return asResolve(s.repeat(ctx, held, held.Fingerprint))
	}
	row, err = s.lg.InsertVoid(ctx, pid, caller, key)
	if errors.Is(err, ledger.ErrConflict) && row != nil {
		if refused := s.completeFromRow(ctx, scope, owner, row); refused != nil {
			return asResolve(*refused)
		}
		return asResolve(Render(row))
	}
	if err != nil {
		return unavailable("ledger: %v", err)
	}
	s.Stats.Voids.Add(1)
	return voided
}
