package stripe

import (
	"fmt"
	"sort"
)

// chargeRef is a successful charge: its creation sequence (the hex digits
// of its id, newID) and its intent's. Charges are appended under API.mu
// as newID numbers them, so the account's list is sorted by seq: 16 bytes
// a charge, where a map from its id to its intent was some 150.
type chargeRef struct {
	seq, pi uint64
}

// chargeIntent is the intent whose successful charge id is; nil when none.
// The caller holds p.mu.
func (a *account) chargeIntent(id string) (*Intent, error) {
	seq, ok := idSeqOf(id)
	if !ok {
		return nil, nil
	}
	cs := a.charges
	i := sort.Search(len(cs), func(i int) bool { return cs[i].seq >= seq })
	if i == len(cs) || cs[i].seq != seq {
		return nil, nil
	}
	pi, err := a.intents.bySeq(cs[i].pi)
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
	a.charges = append(a.charges, chargeRef{seq: seq, pi: piSeq})
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
	i, j := len(a.charges)-1, len(a.failed)-1
	for i >= 0 || j >= 0 {
		var fseq uint64
		if j >= 0 {
			fseq, _ = idSeqOf(a.failed[j].ID)
		}
		if i >= 0 && (j < 0 || a.charges[i].seq > fseq) {
			pi, err := a.intents.bySeq(a.charges[i].pi)
			if err != nil {
				return err
			}
			i--
			if pi != nil && pi.AttemptID != "" {
				if s, _ := idSeqOf(pi.AttemptID); s == a.charges[i+1].seq && !fn(pi.AttemptID, pi.ChargeJSON()) {
					return nil
				}
			}
			continue
		}
		ch, err := a.failedJSON(a.failed[j])
		if err != nil {
			return err
		}
		if !fn(a.failed[j].ID, ch) {
			return nil
		}
		j--
	}
	return nil
}
