package scenario

import (
	"context"
	"strings"

	"github.com/idemcheck/idemcheck/conform/driver"
)

func vLongKey(ctx context.Context, e *Env, t *T) {
	keyRejected(ctx, e, t, "over-long key", func(s *driver.Send) {
		s.Key = strings.Repeat("k", e.Cfg.Proto().MaxKeyLength+1)
	})
}
