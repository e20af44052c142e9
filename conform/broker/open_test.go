package broker_test

import (
	"context"
	"fmt"
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
	broker.Register("test-window-no-length", broker.DedupWindow, func(context.Context, broker.Setup) (broker.Broker, error) { return f, nil }, nil)
	_, err := broker.Open(context.Background(), "test-window-no-length", broker.Setup{})
	if err == nil || !strings.Contains(err.Error(), "declares a dedup window but does not say how long") || !f.Closed() {
		t.Fatalf("got %v (closed %v), want a refusal and the broker closed", err, f.Closed())
	}
	broker.Register("test-window", broker.DedupWindow, func(context.Context, broker.Setup) (broker.Broker, error) {
		return brokertest.Dedup{Fake: &brokertest.Fake{}, Window: 1}, nil
	}, nil)
	if _, err := broker.Open(context.Background(), "test-window", broker.Setup{}); err != nil {
		t.Fatalf("a broker that says its window: %v", err)
	}
}

// TestValidateIsTheBrokers: a config's consumer section is checked by the
// named broker's own rules, which fill its defaults; an unknown name is
// said, and nothing is checked.
func TestValidateIsTheBrokers(t *testing.T) {
	broker.Register("test-rules", 0, nil, func(s *broker.Spec, bad func(field, format string, args ...any)) {
		if s.Queue == "" {
			s.Queue = "q-{{run}}"
		}
		if len(s.Addrs) == 0 {
			bad("consumer.brokers", "needs %d address", 1)
		}
	})
	var got []string
	bad := func(field, format string, args ...any) { got = append(got, field+": "+fmt.Sprintf(format, args...)) }
	s := broker.Spec{}
	if !broker.Validate("test-rules", &s, bad) || s.Queue != "q-{{run}}" || len(got) != 1 || got[0] != "consumer.brokers: needs 1 address" {
		t.Fatalf("test-rules: spec %+v, problems %q", s, got)
	}
	got, s = nil, broker.Spec{}
	if broker.Validate("no-such-broker", &s, bad) || s.Queue != "" || got != nil {
		t.Fatalf("an unknown broker: spec %+v, problems %q", s, got)
	}
}
