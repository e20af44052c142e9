package regions

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
)

// cutAndHeal pays once in R1 while links are cut, shows R2 does not see the
// payment while they stay cut, heals them, and waits for R2 to catch up: a
// replication path that loses what crossed a cut would make the G specs
// prove less than they say.
func cutAndHeal(ctx context.Context, w *world, links []*faults.Link, key string) string {
	GinkgoHelper()
	for _, l := range links {
		_, err := l.Cut()
		Expect(err).NotTo(HaveOccurred())
	}
	p := w.phone("phone-1", "R1")
	p.Journal(key)
	r, err := p.Pay(ctx, key, phone.Story())
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Outcome).To(Equal(history.OutcomeSucceeded))
	Expect(r.Region).To(Equal("R1"))
	pid := api.PaymentID(api.Scope("u1", key, true))
	Expect(w.state(ctx, w.r1, pid)).To(Equal(ledger.Succeeded))
	// Three lags with the link cut: long enough for the item to have
	// crossed a 1.0 s link three times over.
	Consistently(func() string { return w.state(ctx, w.r2, pid) }).WithTimeout(3 * w.lag).WithPolling(20 * time.Millisecond).
		Should(BeEmpty())
	for _, l := range links {
		Expect(l.Heal()).To(Succeed())
		_, err := l.Delay(delayStream(w, l), w.lag, 0)
		Expect(err).NotTo(HaveOccurred())
	}
	return pid
}

// delayStream is the direction a link's replication data flows: a follower
// reads from R1 (replies), a replicator writes to its peer (requests).
func delayStream(w *world, l *faults.Link) faults.Stream {
	if l == w.pgLink || l == w.vkLink {
		return faults.Downstream
	}
	return faults.Upstream
}

var _ = Describe("Region links: a cut holds replication back, a heal loses nothing", func() {
	It("mrec (G1): an item written while both links are cut reaches R2 after the heal", Label("G1"), func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{mode: activeActive})
		pid := cutAndHeal(ctx, w, w.mrecLinks, "K9")
		Eventually(func() string { return w.state(ctx, w.r2, pid) }).WithTimeout(eventually(5)).Should(Equal(ledger.Succeeded))
		Expect(w.psp.Charges()).To(HaveLen(1))
	}, SpecTimeout(2*time.Minute))

	It("Postgres and Valkey replication (G2): what R1 wrote during the cut reaches R2 after the heal", Label("G2"), func(ctx SpecContext) {
		w := newWorld(ctx, worldOpts{mode: standby})
		pid := cutAndHeal(ctx, w, []*faults.Link{w.pgLink, w.vkLink}, "K9")
		// The subscription's apply worker reconnects on its own retry
		// interval (wal_retrieve_retry_interval, 5 s by default).
		Eventually(func() string { return w.state(ctx, w.r2, pid) }).WithTimeout(eventually(5) + 10*time.Second).Should(Equal(ledger.Succeeded))
		Eventually(func() string {
			if r := w.record(ctx, w.r2, "K9"); r != nil {
				return r.State
			}
			return ""
		}).WithTimeout(eventually(5)).Should(Equal(keystore.Done))
	}, SpecTimeout(2*time.Minute))
})
