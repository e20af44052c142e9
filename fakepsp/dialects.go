package fakepsp

import (
	"github.com/idemcheck/idemcheck/fakepsp/core"
	// The dialects, one line each: a dialect registers itself in its init.
	_ "github.com/idemcheck/idemcheck/fakepsp/adyen"
	_ "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// DefaultDialect is the wire a PSP speaks when Config.Dialect is empty.
const DefaultDialect = "stripe"

// Dialects lists the registered dialects' names, sorted.
func Dialects() []string { return core.Dialects() }

// Lookup is the registered dialect called name.
func Lookup(name string) (core.Dialect, error) { return core.Lookup(name) }
