// Package delivery holds the suites of SCENARIOS.md groups D (queues and logs)
// and E (notifications): the outbox relay, real Kafka, the worker with its
// inbox and notification record, the push provider's phone screen, and the
// logical-dedup window in Valkey. Every tier runs as its own OS process, a
// re-execution of this test binary.
package delivery

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/suites/kit"
)

func TestMain(m *testing.M) { kit.Main(m, stopBenchServers) }

func TestDelivery(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "delivery")
}

// need is what every spec of the suite shares: one Postgres cluster (a
// fresh database per spec), one Kafka (a fresh topic and group per spec), one
// Valkey (a fresh key prefix is not needed: dedup keys carry the spec's
// recipient), and Toxiproxy fronting Kafka's second listener (KafkaLink, for
// D2's lost produce reply) and each E3 spec's Valkey link (the cache going
// down).
var need = kit.Need{Postgres: true, Kafka: true, Valkey: true, KafkaLink: true}

var srv = kit.Servers(need)
