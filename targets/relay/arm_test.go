package relay

import (
	"testing"

	"github.com/idemcheck/idemcheck/targets/failpoint"
)

func TestArmFlag(t *testing.T) {
	if err := ArmFlag(AfterPublishBeforeDelete + "=1*error;" + BeforeCommitTransaction + "=sleep(1ms)"); err != nil {
		t.Fatal(err)
	}
	defer failpoint.Disarm(AfterPublishBeforeDelete)
	defer failpoint.Disarm(BeforeCommitTransaction)
	if err := failpoint.Hit(AfterPublishBeforeDelete); err == nil {
		t.Fatal("armed error did not fire")
	}
	if err := failpoint.Hit(AfterPublishBeforeDelete); err != nil {
		t.Fatalf("1*error fired twice: %v", err)
	}
	for _, bad := range []string{"no-equals", "no-such-point=crash", AfterPublishBeforeDelete + "=explode"} {
		if err := ArmFlag(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
