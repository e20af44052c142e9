// Package story runs SCENARIOS.md H1 (seed Part 13): the whole story on one
// timeline against the whole reference stack as OS processes on real
// Postgres, Kafka and Valkey. R1 serves the buyer; R2 follows it 1.0 story
// second behind (Postgres logical replication and Valkey replication through
// Toxiproxy links) and takes over when R1 fails, as suites/regions' G2 does.
// The ledger's change stream is read in R2 (the connector decodes what
// replication applies there, then R2's own writes after the promotion) into
// the stream job, whose sink is checked against the ledger.
package story

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so this binary can become any of them
	"github.com/idemcheck/idemcheck/targets/region"
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch()
	os.Exit(m.Run())
}

func TestStory(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "story")
}

// servers is what the story runs on: R1's Postgres, Valkey and the one Kafka
// (shared by both Regions, as the card network is), R2's Postgres and
// Valkey, and Toxiproxy. Each world gets its own database in both clusters.
type servers struct {
	r1, r2  *services.Stack
	toxi    *faults.Toxiproxy
	brokers string
	admin1  *pgxpool.Pool
	admin2  *pgxpool.Pool
	kc      *kgo.Client
	adm     *kadm.Client
}

var srv *servers

var _ = BeforeSuite(func(ctx SpecContext) {
	fmt.Fprintf(GinkgoWriter, "seed %d; story second = %v (%s); Region lag %.1f story s\n",
		GinkgoRandomSeed(), storytime.Scale, storytime.EnvScale, region.Lag)
	s, err := startServers(ctx)
	Expect(err).NotTo(HaveOccurred())
	srv = s
	DeferCleanup(func(ctx SpecContext) { srv.stop(ctx) }, NodeTimeout(time.Minute))
}, NodeTimeout(4*time.Minute))

func startServers(ctx context.Context) (*servers, error) {
	s := &servers{}
	var err error
	fail := func(err error) (*servers, error) {
		s.stop(context.WithoutCancel(ctx))
		return nil, err
	}
	if s.toxi, err = faults.StartToxiproxy(); err != nil {
		return nil, err
	}
	if s.r1, err = services.Start(ctx, services.Options{Kafka: true, Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		return fail(fmt.Errorf("R1: %w", err))
	}
	if s.r2, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		return fail(fmt.Errorf("R2: %w", err))
	}
	s.brokers = s.r1.Kafka.Endpoint()
	if s.admin1, err = pgxpool.New(ctx, s.r1.Postgres.Endpoint()); err != nil {
		return fail(err)
	}
	if s.admin2, err = pgxpool.New(ctx, s.r2.Postgres.Endpoint()); err != nil {
		return fail(err)
	}
	if s.kc, err = kgo.NewClient(kgo.SeedBrokers(s.brokers)); err != nil {
		return fail(err)
	}
	s.adm = kadm.NewClient(s.kc)
	return s, nil
}

func (s *servers) stop(ctx context.Context) {
	if s.kc != nil {
		s.kc.Close()
	}
	for _, p := range []*pgxpool.Pool{s.admin1, s.admin2} {
		if p != nil {
			p.Close()
		}
	}
	for _, st := range []*services.Stack{s.r2, s.r1} {
		if st != nil {
			_ = st.Stop(ctx)
		}
	}
	if s.toxi != nil {
		_ = s.toxi.Stop()
	}
}
