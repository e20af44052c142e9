// Package delivery holds the suites of SCENARIOS.md groups D (queues and logs)
// and E (notifications): the outbox relay, real Kafka, the worker with its
// inbox and notification record, the push provider's phone screen, and the
// logical-dedup window in Valkey. Every tier runs as its own OS process, a
// re-execution of this test binary.
package delivery

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so this binary can become any of them
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch()
	code := m.Run()
	stopBenchServers()
	os.Exit(code)
}

func TestDelivery(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "delivery")
}

// servers is what every spec of the suite shares: one Postgres cluster (a
// fresh database per spec), one Kafka (a fresh topic and group per spec), one
// Valkey (a fresh key prefix is not needed: dedup keys carry the spec's
// recipient).
type servers struct {
	stack *services.Stack
	// tp fronts Kafka's second listener (kafkaLink, for D2's lost produce
	// reply) and each E3 spec's Valkey link (the cache going down).
	tp        *faults.Toxiproxy
	kafkaLink *faults.Link
	// proxied is the bootstrap address behind kafkaLink.
	proxied   string
	brokers   string
	valkey    string
	adminPool *pgxpool.Pool
	kc        *kgo.Client
	adm       *kadm.Client
}

var srv *servers

var _ = BeforeSuite(func(ctx SpecContext) {
	s, err := startServers(ctx, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	srv = s
	DeferCleanup(func(ctx SpecContext) { srv.stop(ctx) }, NodeTimeout(time.Minute))
}, NodeTimeout(4*time.Minute))

func startServers(ctx context.Context, log io.Writer) (*servers, error) {
	tp, err := faults.StartToxiproxy()
	if err != nil {
		return nil, err
	}
	s := &servers{tp: tp}
	st, err := services.Start(ctx, services.Options{Postgres: true, Kafka: true, Valkey: true, Log: log,
		KafkaAdvertise: func(listener string) (string, error) {
			l, err := tp.Link("kafka", listener)
			if err != nil {
				return "", err
			}
			s.kafkaLink = l
			return l.Addr(), nil
		}})
	if err != nil {
		_ = tp.Stop()
		return nil, err
	}
	s.stack, s.brokers, s.valkey, s.proxied = st, st.Kafka.Endpoint(), st.Valkey.Endpoint(), st.KafkaProxied
	if s.adminPool, err = pgxpool.New(ctx, st.Postgres.Endpoint()); err != nil {
		_ = st.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	if s.kc, err = kgo.NewClient(kgo.SeedBrokers(s.brokers)); err != nil {
		s.adminPool.Close()
		_ = st.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	s.adm = kadm.NewClient(s.kc)
	return s, nil
}

func (s *servers) stop(ctx context.Context) {
	s.kc.Close()
	s.adminPool.Close()
	_ = s.stack.Stop(ctx)
	_ = s.tp.Stop()
}
