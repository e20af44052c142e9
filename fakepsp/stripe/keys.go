package stripe

import (
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Keys are Stripe's documented Idempotency-Key rules: at most 255
// characters, results kept 24 hours (fakepsp's Config.KeyWindow overrides
// the window). https://docs.stripe.com/api/idempotent_requests
var Keys = core.KeyRules{Header: "Idempotency-Key", MaxLen: 255, Window: 24 * time.Hour}
