package failpoint

import (
	"errors"
	"testing"
)

func TestArmList(t *testing.T) {
	reset()
	Register("list-a", "list-b")
	if err := ArmList("list-a=1*error;list-b=sleep(1ms)"); err != nil {
		t.Fatal(err)
	}
	defer Disarm("list-a")
	defer Disarm("list-b")
	if err := Hit("list-a"); !errors.Is(err, ErrInjected) {
		t.Fatalf("armed error did not fire: %v", err)
	}
	if err := Hit("list-a"); err != nil {
		t.Fatalf("1*error fired twice: %v", err)
	}
	for _, bad := range []string{"no-equals", "no-such-point=crash", "list-a=explode"} {
		if err := ArmList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
