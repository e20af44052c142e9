package scenario

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/brokertest"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/faults"
)

// fakeQueueEnv is a run's consumer of two processes on the fake broker b.
func fakeQueueEnv(b *brokertest.Fake) *Env {
	return &Env{Cfg: &config.Config{}, Queue: &Queue{Cfg: &config.Consumer{Broker: "fake", Partitions: 4,
		Env: config.ConsumerEnv{Brokers: "KAFKA_BROKERS", Topic: "KAFKA_TOPIC", Group: "KAFKA_GROUP"}},
		Topic: "t", Group: "g", Broker: b, Caps: b.C, Procs: []faults.Proc{nil, nil}}}
}

// TestRequireReadyAsksTheBroker: the Q checks wait on the broker's own
// signal until it says ready, and no longer.
func TestRequireReadyAsksTheBroker(t *testing.T) {
	not := brokertest.Reading{Readiness: broker.Readiness{Unmet: "u", Saw: "s"}}
	b := &brokertest.Fake{Readings: []brokertest.Reading{not, not, {Readiness: broker.Readiness{Ready: true}}, not}}
	e := fakeQueueEnv(b)
	ct := &T{Env: e}
	if !e.Queue.RequireReady(context.Background(), e, ct) || len(ct.Inconc) != 0 {
		t.Fatalf("ready on the third reading: got not ready, %v", ct.Inconc)
	}
	if n := b.ReadyCalls(); n != 3 {
		t.Fatalf("Ready read %d times, want 3 (stop at the first ready)", n)
	}
}

// TestRequireReadyNeverReadySaysTheLastGoodReading: a broker that never
// says ready makes the check inconclusive in the broker's words, quoting
// the last reading that did not fail (a failed one keeps it), and a
// reading with an error never counts as ready. With Kafka's words this is
// the text the Q checks printed before brokers had their own readiness.
func TestRequireReadyNeverReadySaysTheLastGoodReading(t *testing.T) {
	unmet := "group g was not Stable with 2 member(s)"
	b := &brokertest.Fake{Readings: []brokertest.Reading{
		{Readiness: broker.Readiness{Unmet: unmet, Saw: `state "", 0 member(s)`}, Err: errors.New("coordinator loading")},
		{Readiness: broker.Readiness{Unmet: unmet, Saw: `state "PreparingRebalance", 1 member(s)`}},
		{Readiness: broker.Readiness{Ready: true, Unmet: unmet, Saw: `state "", 0 member(s)`}, Err: errors.New("connection reset")},
	}}
	e := fakeQueueEnv(b)
	ct := &T{Env: e}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if e.Queue.RequireReady(ctx, e, ct) {
		t.Fatal("never ready without an error, yet RequireReady said ready")
	}
	want := []string{`group g was not Stable with 2 member(s) within 1m0s (state "PreparingRebalance", 1 member(s)): does each instance consume $KAFKA_TOPIC in the group named by $KAFKA_GROUP?`}
	if !slices.Equal(ct.Inconc, want) {
		t.Fatalf("inconclusive %q, want %q", ct.Inconc, want)
	}
	// A broker without groups is not asked about one.
	e.Queue.Group = ""
	ct = &T{Env: e}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	e.Queue.RequireReady(ctx2, e, ct)
	if len(ct.Inconc) != 1 || !strings.HasSuffix(ct.Inconc[0], ": does each instance consume $KAFKA_TOPIC?") {
		t.Fatalf("no group: inconclusive %q", ct.Inconc)
	}
}
