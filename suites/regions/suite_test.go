// Package regions runs SCENARIOS.md group G against two Regions of
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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/suites/kit"
	_ "github.com/idemcheck/idemcheck/targets/all" // every tier of one Region
	_ "github.com/idemcheck/idemcheck/targets/mrec"
	_ "github.com/idemcheck/idemcheck/targets/router"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func TestMain(m *testing.M) { kit.Main(m, stopBenchServers) }

func TestRegions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "regions")
}

// servers is what the specs share: R1's and R2's Postgres and Valkey (each
// spec gets its own schema, key prefix, publication, subscription and slots),
// one Kafka (a topic and group per spec) and Toxiproxy, all in R1's Env.
type servers struct {
	env1, env2    *kit.Env
	r1, r2, kafka *services.Stack
	toxi          *faults.Toxiproxy
	brokers       string
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
	if s.env1, err = kit.StartServers(ctx, kit.Need{Kafka: true, Postgres: true, Valkey: true, Toxiproxy: true, Log: GinkgoWriter}); err != nil {
		return nil, fmt.Errorf("R1: %w", err)
	}
	if s.env2, err = kit.StartServers(ctx, kit.Need{Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		_ = s.env1.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("R2: %w", err)
	}
	s.r1, s.r2, s.kafka, s.toxi = s.env1.Stack, s.env2.Stack, s.env1.Stack, s.env1.Toxi
	s.brokers, s.adm = s.env1.Brokers, s.env1.KafkaAdmin
	return s, nil
}

func (s *servers) stop(ctx context.Context) {
	_ = s.env2.Stop(ctx)
	_ = s.env1.Stop(ctx)
}
