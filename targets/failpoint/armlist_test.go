package failpoint_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/relay"
)

func TestArmList(t *testing.T) {
	if err := failpoint.ArmList(relay.AfterPublishBeforeDelete + "=1*error;" + relay.BeforeCommitTransaction + "=sleep(1ms)"); err != nil {
		t.Fatal(err)
	}
	defer failpoint.Disarm(relay.AfterPublishBeforeDelete)
	defer failpoint.Disarm(relay.BeforeCommitTransaction)
	if err := failpoint.Hit(relay.AfterPublishBeforeDelete); err == nil {
		t.Fatal("armed error did not fire")
	}
	if err := failpoint.Hit(relay.AfterPublishBeforeDelete); err != nil {
		t.Fatalf("1*error fired twice: %v", err)
	}
	for _, bad := range []string{"no-equals", "no-such-point=crash", relay.AfterPublishBeforeDelete + "=explode"} {
		if err := failpoint.ArmList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
