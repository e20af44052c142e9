package fakepsp

import (
	"github.com/idemcheck/idemcheck/fakepsp/core"
	// The dialects, one line each: a dialect registers itself in its init.
	_ "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// dialect is the wire fakepsp speaks. Only Stripe's routes exist so far, so
// it is fixed; a configuration will pick it by name (issue 52).
var dialect = mustDialect("stripe")

func mustDialect(name string) core.Dialect {
	d, err := core.Lookup(name)
	if err != nil {
		panic(err)
	}
	return d
}
