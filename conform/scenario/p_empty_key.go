package scenario

import (
	"context"

	"github.com/idemcheck/idemcheck/conform/driver"
)

func vEmptyKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "empty key", func(s *driver.Send) { s.Key = "" })
}
