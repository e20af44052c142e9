// Package shapes holds the suites of SCENARIOS.md C2 and C3 (seed Part 5):
// writes made harmless to repeat by their shape, with no key table. C2 runs
// the likes service with a device whose resend arrives last through a
// Toxiproxy delay; C3 runs the mail parser on real Kafka, redelivering a
// parse after the user moved and deleted the message. Every tier runs as its
// own OS process, a re-execution of this test binary.
package shapes

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	_ "github.com/idemcheck/idemcheck/targets/mailbox"   // so this binary can become the mail tiers
	_ "github.com/idemcheck/idemcheck/targets/reactions" // and the likes service
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch()
	os.Exit(m.Run())
}

func TestShapes(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "shapes")
}

// servers is what every spec shares: one Postgres cluster (a database per
// spec), one Kafka (a topic and group per spec), one Toxiproxy (links per
// spec).
type servers struct {
	stack     *services.Stack
	tp        *faults.Toxiproxy
	brokers   string
	adminPool *pgxpool.Pool
	kc        *kgo.Client
	adm       *kadm.Client
}

var srv *servers

var _ = BeforeSuite(func(ctx SpecContext) {
	tp, err := faults.StartToxiproxy()
	Expect(err).NotTo(HaveOccurred())
	st, err := services.Start(ctx, services.Options{Postgres: true, Kafka: true, Log: GinkgoWriter})
	if err != nil {
		_ = tp.Stop()
	}
	Expect(err).NotTo(HaveOccurred())
	s := &servers{stack: st, tp: tp, brokers: st.Kafka.Endpoint()}
	srv = s
	DeferCleanup(func(ctx SpecContext) { srv.stop(ctx) }, NodeTimeout(time.Minute))
	s.adminPool, err = pgxpool.New(ctx, st.Postgres.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	s.kc, err = kgo.NewClient(kgo.SeedBrokers(s.brokers))
	Expect(err).NotTo(HaveOccurred())
	s.adm = kadm.NewClient(s.kc)
	GinkgoWriter.Printf("toxiproxy API on %s\n", tp.APIAddr())
}, NodeTimeout(4*time.Minute))

func (s *servers) stop(ctx context.Context) {
	if s.kc != nil {
		s.kc.Close()
	}
	if s.adminPool != nil {
		s.adminPool.Close()
	}
	_ = s.stack.Stop(ctx)
	_ = s.tp.Stop()
}
