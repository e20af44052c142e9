package broker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
)

// TestOpenRefusesAWindowOfNoLength: a broker that declares a dedup window
// must say how long it is (Q-dup waits it out); one that does not is
// refused at Open, and what it opened is closed.
func TestOpenRefusesAWindowOfNoLength(t *testing.T) {
	f := &brokertest.Fake{}
	broker.Register("test-window-no-length", broker.DedupWindow, func(context.Context, broker.Setup) (broker.Broker, error) { return f, nil })
	_, err := broker.Open(context.Background(), "test-window-no-length", broker.Setup{})
	if err == nil || !strings.Contains(err.Error(), "declares a dedup window but does not say how long") || !f.Closed() {
		t.Fatalf("got %v (closed %v), want a refusal and the broker closed", err, f.Closed())
	}
	broker.Register("test-window", broker.DedupWindow, func(context.Context, broker.Setup) (broker.Broker, error) {
		return brokertest.Dedup{Fake: &brokertest.Fake{}, Window: 1}, nil
	})
	if _, err := broker.Open(context.Background(), "test-window", broker.Setup{}); err != nil {
		t.Fatalf("a broker that says its window: %v", err)
	}
}
