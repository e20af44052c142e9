package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vMissingKey(ctx context.Context, e *scenario.Env, t *scenario.T) {
	scenario.KeyRejected(ctx, e, t, "no key", func(s *driver.Send) { s.KeyMode = driver.KeyOmit })
}
