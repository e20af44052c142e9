// Package regions runs SCENARIOS.md group G (Part 9) against two Regions of
// the reference stack. Each Region has its own Postgres and Valkey, API
// servers, LB, resolver, outbox relay and worker, every tier its own OS
// process (a re-execution of this test binary); both Regions share one Kafka
// and one fake PSP, as they would share the card network. The replication
// between the Regions crosses Toxiproxy links that carry the lag: Postgres
// logical replication and Valkey replication where R2 follows R1 (G2), the
// last-writer-wins replicator of package mrec where both accept writes (G1).
package regions

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	_ "github.com/idemcheck/idemcheck/targets/all" // every tier of one Region
	_ "github.com/idemcheck/idemcheck/targets/mrec"
	"github.com/idemcheck/idemcheck/targets/region"
	_ "github.com/idemcheck/idemcheck/targets/router"
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

func TestMain(m *testing.M) {
	tier.Dispatch() // this binary can become any tier
	code := m.Run()
	stopBenchServers()
	os.Exit(code)
}

func TestRegions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "regions")
}

// servers is what the specs share: R1's and R2's Postgres and Valkey (each
// spec gets its own schema, key prefix, publication, subscription and slots),
// one Kafka (a topic and group per spec) and Toxiproxy.
type servers struct {
	r1, r2, kafka *services.Stack
	toxi          *faults.Toxiproxy
	brokers       string
	kc            *kgo.Client
	adm           *kadm.Client
}

var srv *servers

var _ = BeforeSuite(func(ctx SpecContext) {
	fmt.Fprintf(GinkgoWriter, "story second = %v (%s); Region lag %.1f story s\n", storytime.Scale, storytime.EnvScale, region.Lag)
	s, err := startServers(ctx)
	Expect(err).NotTo(HaveOccurred())
	srv = s
	DeferCleanup(func(ctx SpecContext) {
		// Every world dropped its own; a slot, subscription or publication
		// left on either cluster is a bug of the run, not of the spec.
		for _, st := range []*services.Stack{srv.r1, srv.r2} {
			left, err := region.Leftovers(ctx, st.Postgres.Endpoint(), "")
			Expect(err).NotTo(HaveOccurred())
			Expect(left).To(BeEmpty(), "replication objects left on %s", st.Postgres.Endpoint())
		}
		srv.stop(ctx)
	}, NodeTimeout(2*time.Minute))
}, NodeTimeout(4*time.Minute))

func startServers(ctx context.Context) (*servers, error) {
	s := &servers{}
	var err error
	if s.toxi, err = faults.StartToxiproxy(); err != nil {
		return nil, err
	}
	fail := func(err error) (*servers, error) {
		s.stop(context.WithoutCancel(ctx))
		return nil, err
	}
	if s.kafka, err = services.Start(ctx, services.Options{Kafka: true, Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		return fail(fmt.Errorf("R1: %w", err))
	}
	s.r1 = s.kafka
	if s.r2, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		return fail(fmt.Errorf("R2: %w", err))
	}
	s.brokers = s.kafka.Kafka.Endpoint()
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
	for _, st := range []*services.Stack{s.r2, s.r1} {
		if st != nil {
			_ = st.Stop(ctx)
		}
	}
	if s.toxi != nil {
		_ = s.toxi.Stop()
	}
}
