package testseed

import "testing"

func TestSeedReadsTheEnvironment(t *testing.T) {
	t.Setenv("IDEMCHECK_SEED", "898308817375844123")
	if got := Seed(t); got != 898308817375844123 {
		t.Fatalf("Seed = %d, want 898308817375844123", got)
	}
}

func TestSeedWithoutTheEnvironmentIsTheClock(t *testing.T) {
	t.Setenv("IDEMCHECK_SEED", "")
	if a, b := Seed(t), Seed(t); a == 0 || b < a {
		t.Fatalf("Seed = %d then %d, want the clock's nanoseconds", a, b)
	}
}
