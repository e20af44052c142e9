package conform

import (
	"os"
	"strconv"
	"testing"
)

// measuredSeeds is how many seeds an every-seed test runs: suite in the
// test suite (its time goal), or $IDEMCHECK_MEASURE_SEEDS when an issue's
// acceptance is measured (10 of 10 for a correct variant, 5 for a flaw).
func measuredSeeds(t *testing.T, suite int) int {
	s := os.Getenv("IDEMCHECK_MEASURE_SEEDS")
	if s == "" {
		return suite
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("IDEMCHECK_MEASURE_SEEDS=%q is not a count", s)
	}
	return n
}

// seedRange is seeds 1..n.
func seedRange(n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}
