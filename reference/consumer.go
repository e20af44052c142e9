package reference

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// consumerInstances is how many workers share the run's group: Q-rebalance
// needs a second one to take partitions over.
const consumerInstances = 2

// wantsQueue says whether the run selects a consumer (Q-*) check; the
// reference starts Kafka and its workers only then.
func wantsQueue(o conform.Options) bool {
	for _, id := range []string{"Q-dup", "Q-kill", "Q-rebalance", "Q-poison"} {
		if (len(o.Only) == 0 || slices.Contains(o.Only, id)) && !slices.Contains(o.Skip, id) {
			return true
		}
	}
	return false
}

// queueMutant refuses worker switches the consumer checks cannot judge.
// Without --chaos the worker runs only for them (queue); they count
// credits, so of the worker's guards only the inbox shows there: the
// notification guards need the full stack's phone, and the masked ones a
// partner switch (the catalogue's CaughtAs).
func queueMutant(ws mutant.Set, queue bool) error {
	if !queue {
		return fmt.Errorf("worker switch %s needs the worker, which runs only for the consumer checks (Q-*) or with --chaos", ws)
	}
	for _, s := range ws.Sorted() {
		if s == mutant.WorkerNoInbox {
			continue
		}
		hint := "run it with --chaos, whose phone sees every push"
		if why, refused := chaosRefused[string(s)]; refused {
			hint = "and --chaos refuses it too: " + why
		}
		return fmt.Errorf("worker switch %q turns off a guard the consumer checks cannot see (they count credits): %s", s, hint)
	}
	return nil
}

// consumerStarter starts the reference's workers on the run's topic and
// group, with a push provider of their own in this process (they notify
// the payer of each credit; nothing here judges the pushes).
func consumerStarter(st *refstack.Stack, ws mutant.Set) func(ctx context.Context, where broker.Endpoint) (*conform.Consumers, error) {
	return func(ctx context.Context, where broker.Endpoint) (*conform.Consumers, error) {
		brokers, topic, group := where.Addrs, where.Queue, where.Group
		if err := worker.Migrate(ctx, st.Ledger.Pool); err != nil {
			return nil, fmt.Errorf("worker tables: %w", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: push.NewServer().Handler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		cs := &conform.Consumers{Ready: func(context.Context, int) error { return nil }}
		var tiers []*refstack.Tier
		cs.Stop = func() {
			for _, t := range tiers {
				_ = t.Proc.Stop(5 * time.Second)
			}
			_ = srv.Close()
		}
		for i := range consumerInstances {
			// The name is the static member id: distinct per instance.
			name := fmt.Sprintf("worker-q%d", i+1)
			args := []string{"-name", name, "-postgres", st.TierDSN, "-brokers", strings.Join(brokers, ","), "-topic", topic, "-group", group,
				"-push", "http://" + ln.Addr().String(), "-valkey", st.TierValkey()}
			if len(ws) > 0 {
				args = append(args, "-mutants", ws.String())
			}
			t, err := st.StartTier(ctx, worker.TierName, name, "", args)
			if t != nil {
				tiers = append(tiers, t)
			}
			if err != nil {
				return cs, err
			}
			cs.Procs = append(cs.Procs, stackProc{st: st, t: t})
			cs.Points = append(cs.Points, faults.FailpointAt(t.Admin, worker.BeforeOffsetCommit))
		}
		return cs, nil
	}
}
