package checks

import "testing"

// A leave aimed inside the processing that found every held record
// credited came late and is struck again earlier; one that held an
// uncredited record, held nothing, or was aimed after the credit is not.
func TestLeaveLateOnlyWhenEveryHeldRecordWasCredited(t *testing.T) {
	inside, after := leave{frac: 0.5}, leave{afterCredit: true}
	for _, c := range []struct {
		l    leave
		r    left
		late bool
	}{
		{inside, left{held: 2, heldCredited: 2}, true},
		{inside, left{held: 2, heldCredited: 1}, false},
		{inside, left{held: 2, heldCredited: 0}, false},
		{inside, left{outside: true}, false},
		{after, left{held: 2, heldCredited: 2}, false},
	} {
		if got := c.r.late(c.l); got != c.late {
			t.Errorf("%+v after %s: late %v, want %v", c.r, c.l, got, c.late)
		}
	}
}
