// Package reference runs SCENARIOS.md's groups A, B and C1 against the
// reference stack as real processes (LB, two API servers, resolver, webhook)
// on real Postgres and Valkey and the fake PSP: each scenario has a holds
// spec (all guards on: no violation, exact end state) and a caught spec (one
// guard off: the checker names the violation).
package reference

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	_ "github.com/idemcheck/idemcheck/targets/api" // tier
	"github.com/idemcheck/idemcheck/targets/keystore"
	_ "github.com/idemcheck/idemcheck/targets/lb"       // tier
	_ "github.com/idemcheck/idemcheck/targets/resolver" // tier
	"github.com/idemcheck/idemcheck/targets/services"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
	_ "github.com/idemcheck/idemcheck/targets/webhook" // tier

	"github.com/valkey-io/valkey-go"
)

func TestMain(m *testing.M) {
	tier.Dispatch() // this binary can become any tier of the stack
	os.Exit(m.Run())
}

func TestReference(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference")
}

// suite is what every spec shares: the real servers and Toxiproxy.
var suite struct {
	svc    *services.Stack
	toxi   *faults.Toxiproxy
	valkey valkey.Client
}

var _ = BeforeSuite(func(ctx SpecContext) {
	fmt.Fprintf(GinkgoWriter, "story second = %v (%s)\n", storytime.Scale, storytime.EnvScale)
	st, err := services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: GinkgoWriter})
	Expect(err).NotTo(HaveOccurred())
	suite.svc = st
	suite.toxi, err = faults.StartToxiproxy()
	Expect(err).NotTo(HaveOccurred())
	suite.valkey, err = keystore.Dial(st.Valkey.Endpoint())
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(3*time.Minute))

var _ = AfterSuite(func() {
	if suite.valkey != nil {
		suite.valkey.Close()
	}
	if suite.toxi != nil {
		Expect(suite.toxi.Stop()).To(Succeed())
	}
	if suite.svc != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		Expect(suite.svc.Stop(ctx)).To(Succeed())
	}
})
