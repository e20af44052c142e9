// Package testseed is the seed of a randomized test: IDEMCHECK_SEED when
// set, to replay a failure the test printed, else the clock.
package testseed

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// Seed returns IDEMCHECK_SEED, or the clock when it is unset; a value that
// is not a number fails the test, naming it. The caller prints the seed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	if s := os.Getenv("IDEMCHECK_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("IDEMCHECK_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}
