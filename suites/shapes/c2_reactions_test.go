package shapes

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/checker/matchers"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/reactions"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

const post = "u1/post-p1"

// c2 is what one run of branch V leaves behind.
type c2 struct {
	w        *world
	final    string
	hwm      int64
	arrivals []reactions.Arrival
	// resend is what the service answered the late LIKE: the item's state
	// as it found it, whether or not the LIKE applied.
	resend reactions.Result
}

// runC2 plays branch V against the likes service with mutants switched on:
//
//  1. D1 taps LIKE (counter 41) and sends it on its cellular path; the
//     service applies it and the reply is lost (Toxiproxy drops it).
//  2. The phone's time daemon steps its clock back (seeded, 1 to 12 story
//     hours); the user taps UNLIKE (counter 42), stamped earlier than LIKE.
//  3. The cellular path stalls (a Toxiproxy delay on requests). D1 resends
//     the unacknowledged LIKE on it, then sends UNLIKE on Wi-Fi; once UNLIKE
//     is acknowledged the stall ends and the resent LIKE arrives last.
//
// The reorder is checked from both ends: the history says the resend was
// sent before UNLIKE, the service's arrival log says it came in after.
func runC2(ctx context.Context, mutants ...mutant.Switch) *c2 {
	w := newWorld(ctx)
	set := mutant.Set{}
	for _, m := range mutants {
		set[m] = true
	}
	svc := w.start(ctx, "reactions", reactions.TierName, "", "-pg", w.dsn, "-mutants", set.String())
	cell, cellURL := w.link("cell", svc.Addrs["http"])
	_, wifiURL := w.link("wifi", svc.Addrs["http"])
	dev := reactions.NewDevice("D1", 41, w.rec)

	By("1. LIKE 41 on the cellular path; its reply is lost")
	like := dev.Tap(post, reactions.Like)
	lose, err := cell.LoseReply()
	Expect(err).NotTo(HaveOccurred())
	before := cell.Fired()
	r := dev.Send(ctx, "D1-cell", cellURL, like)
	Expect(r.Known).To(BeFalse(), "the LIKE's reply must be lost: %+v", r)
	Expect(cell.Fired()).To(BeNumerically(">", before), "the lost-reply fault never fired")
	Expect(lose()).To(Succeed())
	Expect(w.readState(ctx)).To(Equal(reactions.Liked), "the service acted on the LIKE whose reply was lost")

	By("2. the phone's clock steps back; UNLIKE 42 is journaled")
	skew := storytime.D(float64(3600 * (1 + w.rng.IntN(12))))
	GinkgoWriter.Printf("phone clock skew: -%v\n", skew)
	dev.Clock.Advance(-skew)
	unlike := dev.Tap(post, reactions.Unlike)
	Expect(unlike.PhoneTime).To(BeNumerically("<", like.PhoneTime), "the clock skew did not make UNLIKE look older")

	By("3. the cellular path stalls; the LIKE resend goes out on it, UNLIKE on Wi-Fi")
	Expect(dev.Unacked()).To(Equal([]*reactions.Entry{like, unlike}))
	stall, err := cell.Delay(faults.Upstream, storytime.D(60), 0)
	Expect(err).NotTo(HaveOccurred())
	resent := dev.Start(ctx, "D1-cell", cellURL, like)
	u := dev.Send(ctx, "D1-wifi", wifiURL, unlike)
	Expect(u.Known).To(BeTrue(), "UNLIKE: %v", u.Err)
	Expect(u.Status).To(Equal(200))
	// The delay lasts until UNLIKE is acknowledged: removing the latency
	// toxic releases the held request at once, so the resend arrives last
	// by construction, not by winning a race against UNLIKE.
	Expect(stall()).To(Succeed())
	var rr reactions.Reply
	Eventually(resent).WithTimeout(30 * time.Second).Should(Receive(&rr))
	Expect(rr.Known).To(BeTrue(), "the resent LIKE: %v", rr.Err)
	Expect(rr.Status).To(Equal(200))
	Expect(dev.Unacked()).To(BeEmpty())

	c := &c2{w: w, resend: rr.Result}
	c.arrivals, err = reactions.Arrivals(ctx, w.pool, post)
	Expect(err).NotTo(HaveOccurred())
	Expect(counters(c.arrivals)).To(Equal([]int64{41, 42, 41}), "the resent LIKE must arrive last")
	c.hwm, err = reactions.HighWater(ctx, w.pool, "D1", post)
	Expect(err).NotTo(HaveOccurred())
	c.final = w.readState(ctx)
	// The history agrees: the resend was sent before UNLIKE and answered after.
	var resendCall, unlikeCall int64
	for _, op := range w.rec.History() {
		switch {
		case op.Process == "D1-cell" && op.Return != nil:
			resendCall = op.Call
		case op.Process == "D1-wifi":
			unlikeCall = op.Call
		}
	}
	Expect(resendCall).To(BeNumerically("<", unlikeCall), "the resend must be sent before UNLIKE")
	return c
}

func counters(as []reactions.Arrival) []int64 {
	var out []int64
	for _, a := range as {
		out = append(out, a.Counter)
	}
	return out
}

func applied(as []reactions.Arrival) []bool {
	var out []bool
	for _, a := range as {
		out = append(out, a.Applied)
	}
	return out
}

// readState reads the post's state from the service's database (ground
// truth) and records the read.
func (w *world) readState(ctx context.Context) string {
	GinkgoHelper()
	p := w.rec.Begin("reader", history.OpState, "", history.Input{ShapeInput: history.ShapeInput{Item: post}})
	s, err := reactions.State(ctx, w.pool, post)
	Expect(err).NotTo(HaveOccurred())
	Expect(p.End(history.Output{ShapeOutput: history.ShapeOutput{Value: s}})).To(Succeed())
	return s
}

var _ = Describe("C2: apply by version: LIKE 41, UNLIKE 42, the resent LIKE arrives last", Label("C2"), func() {
	It("holds: the per-device high-water mark drops the late LIKE; final state unliked", func(ctx SpecContext) {
		c := runC2(ctx)
		Expect(applied(c.arrivals)).To(Equal([]bool{true, true, false}))
		Expect(c.resend).To(Equal(reactions.Result{Applied: false, State: reactions.Unliked}), "the late LIKE is answered from what is there")
		Expect(c.final).To(Equal(reactions.Unliked))
		Expect(c.hwm).To(Equal(int64(42)))
		Expect(c.w.check()).To(matchers.HaveNoViolations())
	})
	It("caught: order-by-arrival applies the late LIKE; final state liked (stale-write-applied)", func(ctx SpecContext) {
		c := runC2(ctx, mutant.OrderByArrival)
		Expect(applied(c.arrivals)).To(Equal([]bool{true, true, true}))
		Expect(c.resend).To(Equal(reactions.Result{Applied: true, State: reactions.Liked}))
		Expect(c.final).To(Equal(reactions.Liked))
		// Exactly one finding: the one final read shows the stale LIKE; any
		// other kind would be a harness bug, not this mutant.
		Expect(c.w.check()).To(matchers.HaveExactViolations(checker.KindStaleWriteApplied))
	})
	It("caught: order-by-phone-clock drops UNLIKE, stamped earlier by the skewed clock; final state liked (stale-write-applied)", func(ctx SpecContext) {
		c := runC2(ctx, mutant.OrderByPhoneClock)
		Expect(applied(c.arrivals)).To(Equal([]bool{true, false, false}))
		Expect(c.resend).To(Equal(reactions.Result{Applied: false, State: reactions.Liked}))
		Expect(c.final).To(Equal(reactions.Liked))
		// Exactly one finding: the one final read shows the stale LIKE; any
		// other kind would be a harness bug, not this mutant.
		Expect(c.w.check()).To(matchers.HaveExactViolations(checker.KindStaleWriteApplied))
	})
})
