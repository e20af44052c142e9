package scenario

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
)

func vMissingKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "no key", func(s *driver.Send) { s.KeyMode = driver.KeyOmit })
}
