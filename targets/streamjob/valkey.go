package streamjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/valkey-io/valkey-go"
)

// valkeySeen is the mutant seen-ids-external: the dedup memory lives in a
// cache outside the checkpoint, so a restore rewinds state and input but not
// the cache; the replay of a change finds its own id and is dropped (F3).
type valkeySeen struct {
	c      valkey.Client
	prefix string
	ttl    time.Duration
}

func newValkeySeen(addr, job string, horizon time.Duration) (*valkeySeen, error) {
	if addr == "" {
		return nil, errors.New("streamjob: the seen-ids-external mutant needs -valkey")
	}
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true})
	if err != nil {
		return nil, fmt.Errorf("streamjob: valkey: %w", err)
	}
	// A processing-time TTL, the way such caches are run.
	return &valkeySeen{c: c, prefix: "streamjob:" + job + ":seen:", ttl: 2 * horizon}, nil
}

func (v *valkeySeen) Has(id string) bool {
	// An error reads as "not seen": the mutant has no better answer.
	n, _ := v.c.Do(context.Background(), v.c.B().Exists().Key(v.prefix+id).Build()).AsInt64()
	return n == 1
}

func (v *valkeySeen) Add(id string, _ int64) {
	_ = v.c.Do(context.Background(), v.c.B().Set().Key(v.prefix+id).Value("1").Px(v.ttl).Build()).Error()
}

func (v *valkeySeen) close() { v.c.Close() }
