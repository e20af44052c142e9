// Package story runs SCENARIOS.md H1: the whole story on one
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
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/suites/kit"
	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so this binary can become any of them
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func TestMain(m *testing.M) { kit.Main(m) }

func TestStory(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "story")
}

// servers is what the story runs on: R1's Postgres, Valkey and the one Kafka
// (shared by both Regions, as the card network is), R2's Postgres and
// Valkey, and Toxiproxy, from the kit. Each world gets its own database in
// both clusters.
type servers struct {
	env1, env2 *kit.Env
	r1, r2     *services.Stack
	toxi       *faults.Toxiproxy
	brokers    string
	admin1     *pgxpool.Pool
	admin2     *pgxpool.Pool
	adm        *kadm.Client
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
	if s.env1, err = kit.StartServers(ctx, kit.Need{Kafka: true, Postgres: true, Valkey: true, Toxiproxy: true, Log: GinkgoWriter}); err != nil {
		return nil, fmt.Errorf("R1: %w", err)
	}
	if s.env2, err = kit.StartServers(ctx, kit.Need{Postgres: true, Valkey: true, Log: GinkgoWriter}); err != nil {
		_ = s.env1.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("R2: %w", err)
	}
	s.r1, s.r2, s.toxi = s.env1.Stack, s.env2.Stack, s.env1.Toxi
	s.brokers, s.admin1, s.admin2, s.adm = s.env1.Brokers, s.env1.Admin, s.env2.Admin, s.env1.KafkaAdmin
	return s, nil
}

func (s *servers) stop(ctx context.Context) {
	_ = s.env2.Stop(ctx)
	_ = s.env1.Stop(ctx)
}
