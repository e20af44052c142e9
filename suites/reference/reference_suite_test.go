// Package reference runs SCENARIOS.md's groups A, B and C1 against the
// reference stack as real processes (LB, two API servers, resolver, webhook)
// on real Postgres and Valkey and the fake PSP: each scenario has a holds
// spec (all guards on: no violation, exact end state) and a caught spec (one
// guard off: the checker names the violation).
package reference

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/suites/kit"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func TestMain(m *testing.M) { kit.Main(m) }

func TestReference(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference")
}

// srv is what every spec shares: the real servers and Toxiproxy.
var srv = kit.Servers(kit.Need{Postgres: true, Valkey: true, Toxiproxy: true,
	Setup: func(context.Context, *kit.Env) error {
		fmt.Fprintf(GinkgoWriter, "story second = %v (%s)\n", storytime.Scale, storytime.EnvScale)
		return nil
	}})
