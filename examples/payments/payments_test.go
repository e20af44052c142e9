// An incident suite against a service of your own: the payment service of
// this package, on a real Postgres, charging the fake PSP through a
// Toxiproxy link. The incident: the PSP charges and its reply to the
// service is lost; the app retries under the same key.
package payments_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/examples/payments"
	"github.com/idemcheck/idemcheck/suites/kit"
)

func TestPayments(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "payments example")
}

// The servers the service needs, and a Toxiproxy for the fault.
var srv = kit.Servers(kit.Need{Postgres: true, Toxiproxy: true})

// world is one spec's service on its own database, its PSP (recording its
// charges into the same history as the app's answers) and the link between
// them that the spec breaks.
type world struct {
	*kit.Record
	pspLink *kit.Link
	app     *kit.Client
}

func newWorld(ctx context.Context, buggy bool) *world {
	w := srv.NewWorld("examples", "pay")
	_, db := w.Database(ctx)
	Expect(payments.Migrate(ctx, db)).To(Succeed())
	rec := kit.NewRecord()
	link := w.Link("psp", rec.PSP.URL())
	svc := &payments.Service{DB: db, PSP: "http://" + link.Addr(), PSPKey: rec.PSP.SecretKey(),
		PSPTimeout: 2 * time.Second, ForgetOnTimeout: buggy}
	app := rec.Client("app-1", "u1", kit.Serve(svc)+"/pay")
	// Longer than the service's PSP timeout: the app hears the service's
	// answer, and a loaded machine's slow PSP call is not a lost reply.
	app.Timeout = 10 * time.Second
	return &world{Record: rec, pspLink: link, app: app}
}

var order = kit.Payment{Key: "K1", Amount: 3000, Currency: "USD",
	Body: map[string]any{"amount": 3000, "currency": "USD", "order": "42"}}

// incident loses the PSP's reply to the first copy, then lets the app retry
// until it hears a definite answer.
func incident(ctx context.Context, w *world) (first, last kit.Answer) {
	undo, err := w.pspLink.LoseReply()
	Expect(err).NotTo(HaveOccurred())
	first = w.app.Create(ctx, order)
	Expect(w.pspLink.Fired()).To(BeNumerically(">", 0), "the PSP's reply was not lost")
	Expect(undo()).To(Succeed())
	last = w.app.Pay(ctx, order, 5)
	return first, last
}

var _ = Describe("a PSP reply lost after the charge", func() {
	It("holds: the service answers processing and asks the PSP again under the same key; one charge", func(ctx SpecContext) {
		w := newWorld(ctx, false)
		first, last := incident(ctx, w)
		Expect(first.Code).To(Equal(http.StatusAccepted), first.String())
		Expect(first.Outcome).To(Equal(history.OutcomeProcessing))
		Expect(last.Code).To(Equal(http.StatusOK), last.String())
		Expect(last.PaymentID).To(Equal(first.PaymentID))
		Expect(w.PSP.Charges()).To(HaveLen(1))
		Expect(w.History(ctx)).To(matchers.HaveNoViolations())
	}, SpecTimeout(time.Minute))

	It("caught: a service that reads the timeout as a decline and forgets the key charges twice", func(ctx SpecContext) {
		w := newWorld(ctx, true)
		first, last := incident(ctx, w)
		Expect(first.Outcome).To(Equal(history.OutcomeFailed), first.String())
		Expect(last.Outcome).To(Equal(history.OutcomeSucceeded), last.String())
		Expect(last.PaymentID).NotTo(Equal(first.PaymentID))
		Expect(w.PSP.Charges()).To(HaveLen(2))
		Expect(w.History(ctx)).To(matchers.HaveViolation(checker.KindDoubleCharge))
	}, SpecTimeout(time.Minute))
})
