// An incident suite against the reference stack: LB, two API servers and a
// webhook, each its own process, on real Postgres and Valkey, charging the
// fake PSP. Each incident has a holds spec (every guard on) and a caught
// spec (one guard switched off: the checker names what broke).
package reference_test

import (
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/suites/kit"
)

// The test binary becomes each tier of the stack: TestMain lets it.
func TestMain(m *testing.M) { kit.Main(m) }

func TestReference(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reference example")
}

var srv = kit.Servers(kit.Need{Postgres: true, Valkey: true, Toxiproxy: true})

var _ = Describe("the phone's reply is lost at the load balancer", func() {
	It("holds: the retry under the same key is answered from the key record; one charge", func(ctx SpecContext) {
		w := srv.NewReference(ctx, kit.RefOptions{Toxi: true, NoResolver: true})
		ph := w.Phone("phone-1", "u1")
		ph.Timeout = 3 * time.Second
		ph.Journal("K1")
		undo, err := w.Stack.PhoneLink.LoseReply()
		Expect(err).NotTo(HaveOccurred())
		r1 := ph.Send(ctx, "K1", kit.StoryOrder(), false)
		Expect(r1.Timeout).To(BeTrue(), r1.String())
		Expect(w.Stack.PhoneLink.Fired()).To(BeNumerically(">", 0), "the reply was not lost")
		Expect(undo()).To(Succeed())
		r2, err := ph.Retry(ctx, "K1", kit.StoryOrder())
		Expect(err).NotTo(HaveOccurred())
		Expect(r2.Outcome).To(Equal(history.OutcomeSucceeded), r2.String())
		Expect(w.PSP.Charges()).To(HaveLen(1))
		Expect(w.History(ctx)).To(matchers.HaveNoViolations())
	}, SpecTimeout(time.Minute))
})

var _ = Describe("two buyers use the same key for the same basket", func() {
	send := func(ctx SpecContext, w *kit.Reference) (kit.Reply, kit.Reply) {
		p1, p2 := w.Phone("phone-1", "u1"), w.Phone("phone-2", "u2")
		p1.Journal("K1")
		p2.Journal("K1")
		return p1.Send(ctx, "K1", kit.StoryOrder(), false), p2.Send(ctx, "K1", kit.StoryOrder(), false)
	}

	It("holds: each caller gets its own payment", func(ctx SpecContext) {
		w := srv.NewReference(ctx, kit.RefOptions{NoResolver: true})
		r1, r2 := send(ctx, w)
		Expect([]int{r1.Code, r2.Code}).To(Equal([]int{http.StatusOK, http.StatusOK}), r1.String()+" / "+r2.String())
		Expect(r2.PaymentID).NotTo(Equal(r1.PaymentID))
		Expect(w.PSP.Charges()).To(HaveLen(2))
		Expect(w.History(ctx)).To(matchers.HaveNoViolations())
	}, SpecTimeout(time.Minute))

	It("caught: a key not scoped to the caller hands u2 u1's answer", func(ctx SpecContext) {
		w := srv.NewReference(ctx, kit.RefOptions{NoResolver: true, Mutants: []kit.Mutant{"key-not-scoped"}})
		r1, r2 := send(ctx, w)
		Expect(r2.PaymentID).To(Equal(r1.PaymentID), "u2 received u1's payment")
		Expect(w.PSP.Charges()).To(HaveLen(1))
		Expect(w.History(ctx)).To(matchers.HaveViolation(checker.KindInconsistentAnswer))
	}, SpecTimeout(time.Minute))
})
