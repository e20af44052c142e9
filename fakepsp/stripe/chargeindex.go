package stripe

import (
	"fmt"
	"iter"
)

// chargeIntent is the intent whose successful charge id is; nil when none.
// The account's charges index (account.charges) files each successful
// charge by its creation sequence (the hex digits of its id, newID) with its
// intent's: on disk, where a map from its id to its intent was some 150
// bytes a charge in memory. The caller holds p.mu.
func (a *account) chargeIntent(id string) (*Intent, error) {
	seq, ok := idSeqOf(id)
	if !ok {
		return nil, nil
	}
	piSeq, err := a.charges.get(seq)
	if err != nil || piSeq == 0 {
		return nil, err
	}
	pi, err := a.intents.bySeq(piSeq)
	if err != nil || pi == nil || pi.AttemptID != id {
		return nil, err
	}
	return pi, nil
}

// addCharge files pi's successful charge (pi.AttemptID).
func (a *account) addCharge(pi *Intent) {
	seq, _ := idSeqOf(pi.AttemptID)
	piSeq, _ := idSeqOf(pi.ID)
	a.charges.add(seq, piSeq)
}

// failedJSON is fc's Charge object, with its intent read back.
func (a *account) failedJSON(fc *FailedCharge) (map[string]any, error) {
	pi, err := a.intents.peek(fc.Intent)
	if err != nil {
		return nil, err
	}
	if pi == nil {
		return nil, fmt.Errorf("fakepsp: the PaymentIntent %s of charge %s is missing", fc.Intent, fc.ID)
	}
	return fc.JSON(pi), nil
}

// eachCharge calls fn on every charge id, newest first, successful or
// failed, with its Charge object, until fn returns false; a read that
// fails ends it with the error.
func (a *account) eachCharge(fn func(id string, ch map[string]any) bool) error {
	nextFailed, stop := iter.Pull2(a.failed.all())
	defer stop()
	fc, err, more := nextFailed()
	// failedDownTo sends the failed charges newer than seq; false when fn
	// asked to stop or a read failed (err).
	failedDownTo := func(seq uint64) bool {
		for ; more; fc, err, more = nextFailed() {
			if err != nil {
				return false
			}
			if fseq, _ := idSeqOf(fc.ID); fseq < seq {
				return true
			}
			var ch map[string]any
			if ch, err = a.failedJSON(fc); err != nil || !fn(fc.ID, ch) {
				return false
			}
		}
		return true
	}
	stopped := false
	if ierr := a.charges.each(func(seq, piSeq uint64) bool {
		if !failedDownTo(seq) {
			stopped = true
			return false
		}
		pi, rerr := a.intents.bySeq(piSeq)
		if rerr != nil {
			err, stopped = rerr, true
			return false
		}
		if pi != nil && pi.AttemptID != "" {
			if s, _ := idSeqOf(pi.AttemptID); s == seq && !fn(pi.AttemptID, pi.ChargeJSON()) {
				stopped = true
				return false
			}
		}
		return true
	}); ierr != nil {
		return ierr
	}
	if !stopped {
		failedDownTo(0)
	}
	return err
}
