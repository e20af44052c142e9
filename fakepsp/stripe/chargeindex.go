package stripe

import (
	"fmt"
	"sort"
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

// failedCharge is the declined attempt id names; nil when none.
func (a *account) failedCharge(id string) *FailedCharge {
	seq, ok := idSeqOf(id)
	if !ok {
		return nil
	}
	fs := a.failed
	i := sort.Search(len(fs), func(i int) bool { s, _ := idSeqOf(fs[i].ID); return s >= seq })
	if i < len(fs) && fs[i].ID == id {
		return fs[i]
	}
	return nil
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
	j := len(a.failed) - 1
	var err error
	// failedDownTo sends the failed charges newer than seq; false when fn
	// asked to stop or a read failed (err).
	failedDownTo := func(seq uint64) bool {
		for ; j >= 0; j-- {
			fseq, _ := idSeqOf(a.failed[j].ID)
			if fseq < seq {
				return true
			}
			var ch map[string]any
			if ch, err = a.failedJSON(a.failed[j]); err != nil || !fn(a.failed[j].ID, ch) {
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
