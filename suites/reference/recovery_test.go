package reference

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/resolver"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Every charged payment must end SUCCEEDED with its outbox row, whichever
// tier dies at whichever point.
var _ = Describe("Recovery after a crash at any failpoint", Label("recovery"), func() {
	DescribeTable("an API server crashes, restarts; the phone retries; the resolver runs",
		func(ctx SpecContext, point string) {
			w := newWorld(ctx, worldOpts{})
			id := pid("u1", "K1")
			w.lbAdmin(http.MethodPut, "/route?pin=0")
			Expect(faults.FailpointAt(w.st.APIs[0].Admin, point).Arm("crash")).To(Succeed())
			ph := w.phone("phone-1", "u1")
			ph.Journal("K1")
			r1 := ph.Send(ctx, "K1", phone.Story(), false)
			Expect(r1.Code).To(Equal(http.StatusBadGateway), r1.String())
			Expect(w.st.APIs[0].Proc.Wait(eventually(1))).To(MatchError(ContainSubstring("exit status 86")), "no crash at "+point)
			Expect(w.st.Restart(ctx, w.st.APIs[0])).To(Succeed())
			r, err := ph.Retry(ctx, "K1", phone.Story())
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Code).To(Equal(http.StatusOK), r.String())
			Expect(r.PaymentID).To(Equal(id))
			Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
			Eventually(func() []ledger.OutboxRow { return w.outbox(ctx) }).WithTimeout(eventually(10)).Should(HaveLen(1))
			Expect(states(w.payments(ctx))).To(Equal(map[string]string{id: ledger.Succeeded}))
			Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
		},
		Entry(nil, api.AfterClaim, SpecTimeout(time.Minute)),
		Entry(nil, api.AfterPendingInsert, SpecTimeout(time.Minute)),
		Entry(nil, api.BeforePSPCall, SpecTimeout(time.Minute)),
		Entry(nil, api.AfterPSPCall, SpecTimeout(time.Minute)),
		Entry(nil, api.BeforeComplete, SpecTimeout(time.Minute)),
	)

	It("the resolver crashes mid-sweep, restarts, and settles the UNKNOWN payment", func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{})
		id := pid("u1", "K1")
		Expect(faults.FailpointAt(w.st.Resolver.Admin, resolver.SweepPoint).Arm("crash")).To(Succeed())
		w.lbAdmin(http.MethodPut, "/route?pin=1")
		Expect(faults.FailpointAt(w.st.APIs[1].Admin, api.AfterPSPCall).Arm("1*error")).To(Succeed())
		ph := w.phone("phone-1", "u1")
		ph.Journal("K1")
		r1 := ph.Send(ctx, "K1", phone.Story(), false)
		Expect(r1.Outcome).To(Equal(history.OutcomeProcessing), r1.String())
		Expect(w.st.Resolver.Proc.Wait(eventually(3))).To(MatchError(ContainSubstring("exit status 86")), "resolver did not crash")
		Expect(w.payment(ctx, id).State).To(Equal(ledger.Unknown))
		Expect(w.st.Restart(ctx, w.st.Resolver)).To(Succeed())
		Eventually(func() string { return w.payment(ctx, id).State }).WithTimeout(eventually(10)).
			WithPolling(storytime.D(0.2)).Should(Equal(ledger.Succeeded))
		Expect(pspKeys(w.psp.Charges())).To(Equal([]string{id + ":charge"}))
		Expect(w.outbox(ctx)).To(HaveLen(1))
		r := ph.Send(ctx, "K1", phone.Story(), true)
		Expect(r.Code).To(Equal(http.StatusOK), r.String())
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	}, SpecTimeout(time.Minute))

	It("the LB stamps arrival itself: a client's own stamp is stripped", Label("basic"), func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{noResolver: true})
		req, err := http.NewRequest(http.MethodPost, w.st.URL+"/payments", bytes.NewReader(phone.Story().Body()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer u1")
		req.Header.Set("Idempotency-Key", "K1")
		req.Header.Set(api.ArrivalHeader, "1") // 1970: would be past any deadline
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(w.stat("deadline_rejects")).To(BeZero())
	}, SpecTimeout(time.Minute))
})

var _ = Describe("The resolver's rate cap", Label("resolver"), func() {
	It("spreads replays at its own rate, so they cannot starve live payments", func(ctx SpecContext) {
		const rate, burst, n = 4.0, 1, 6
		w := newWorld(ctx, worldOpts{resolverRate: rate, resolverBurst: burst})
		held := w.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.HoldReply, Match: fakepsp.Match{Op: "charge", Times: n}})
		Expect(w.st.Resolver.Proc.Pause()).To(Succeed())
		done := make(chan struct{}, n)
		phones := make([]*phone.Phone, n)
		for i := range n {
			phones[i] = w.phone(fmt.Sprintf("phone-%d", i+1), fmt.Sprintf("u%d", i+1))
			go func() {
				defer GinkgoRecover()
				ph := phones[i]
				ph.Journal("K1")
				r := ph.Send(ctx, "K1", phone.Story(), false)
				Expect(r.Outcome).To(Equal(history.OutcomeProcessing), r.String())
				done <- struct{}{}
			}()
		}
		for range n {
			Eventually(done).WithTimeout(eventually(10)).Should(Receive())
		}
		Expect(held.Fired()).To(Equal(int64(n)))
		Expect(w.st.Resolver.Proc.Resume()).To(Succeed())
		start := time.Now()
		// At every look, the replays so far fit the bucket: burst + rate x
		// elapsed, +1 for a replay counted as it starts.
		deadline := start.Add(20 * time.Second)
		for {
			m := statsAt(w.st.Resolver.Admin)
			Expect(float64(m["psp_calls"])).To(BeNumerically("<=", burst+1+rate*time.Since(start).Seconds()), "replays over the cap")
			if m["settled"] == n {
				break
			}
			Expect(time.Now().Before(deadline)).To(BeTrue(), "the resolver did not settle every payment")
			time.Sleep(20 * time.Millisecond) // polling interval
		}
		Expect(time.Since(start).Seconds()).To(BeNumerically(">=", float64(n-burst-1)/rate), "settled faster than the cap allows")
		Expect(w.psp.Charges()).To(HaveLen(n))
		// Each buyer comes back and hears the settled payment: the history
		// ends converged, as the failed-but-charged invariant requires.
		for _, ph := range phones {
			r := ph.Send(ctx, "K1", phone.Story(), true)
			Expect(r.Outcome).To(Equal(history.OutcomeSucceeded), r.String())
		}
		Expect(w.history(ctx)).To(matchers.HaveNoViolations(opts))
	}, SpecTimeout(time.Minute))
})
