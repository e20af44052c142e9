package fakepsp

import (
	"slices"

	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// Names the Stripe wire tests of this package use from the dialect they
// test, which moved to fakepsp/stripe (issue 52).

func shouldRetry(status int) string { return wire.ShouldRetry(status) }

func oneOf(s string, set []string) bool { return slices.Contains(set, s) }
