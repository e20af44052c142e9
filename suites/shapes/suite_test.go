// Package shapes holds the suites of SCENARIOS.md C2 and C3:
// writes made harmless to repeat by their shape, with no key table. C2 runs
// the likes service with a device whose resend arrives last through a
// Toxiproxy delay; C3 runs the mail parser on real Kafka, redelivering a
// parse after the user moved and deleted the message. Every tier runs as its
// own OS process, a re-execution of this test binary.
package shapes

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/suites/kit"
	_ "github.com/idemcheck/idemcheck/targets/mailbox"   // so this binary can become the mail tiers
	_ "github.com/idemcheck/idemcheck/targets/reactions" // and the likes service
)

func TestMain(m *testing.M) { kit.Main(m) }

func TestShapes(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "shapes")
}

// srv is what every spec shares: one Postgres cluster (a database per
// spec), one Kafka (a topic and group per spec), one Toxiproxy (links per
// spec).
var srv = kit.Servers(kit.Need{Postgres: true, Kafka: true, Toxiproxy: true,
	Setup: func(_ context.Context, e *kit.Env) error {
		GinkgoWriter.Printf("toxiproxy API on %s\n", e.Toxi.APIAddr())
		return nil
	}})
