package reference

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/stack/services"
)

// The chaos tests share one set of R1's servers, as the bench's kill matrix
// does: each run's stack has a name of its own (its schema, key prefix,
// topics and group), so nothing of one run is seen by the next, and the
// servers' start-up is paid once instead of per run.
var shared struct {
	once sync.Once
	svc  *services.Stack
	err  error
}

// sharedServices starts Postgres, Valkey and Kafka on first use.
func sharedServices(t *testing.T) *services.Stack {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		shared.svc, shared.err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Kafka: true, Log: io.Discard})
	})
	if shared.err != nil {
		t.Fatalf("the shared servers: %v", shared.err)
	}
	return shared.svc
}

// stopShared stops the shared servers, if they were started.
func stopShared() {
	if shared.svc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = shared.svc.Stop(ctx)
}
