package checks

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vEmptyKey(ctx context.Context, e *scenario.Env, t *scenario.T) {
	scenario.KeyRejected(ctx, e, t, "empty key", func(s *driver.Send) { s.Key = "" })
}
