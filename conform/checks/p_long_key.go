package checks

import (
	"context"
	"strings"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vLongKey(ctx context.Context, e *scenario.Env, t *scenario.T) {
	scenario.KeyRejected(ctx, e, t, "over-long key", func(s *driver.Send) {
		s.Key = strings.Repeat("k", e.Cfg.Proto().MaxKeyLength+1)
	})
}
