package kit

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// Record is a world's history: one recorder the clients and the fake PSP
// both write to (so a charge and the answer about it share one clock and
// one file), and the effects read from elsewhere when the spec checks.
type Record struct {
	Rec *history.Recorder
	// PSP is the fake PSP your service charges (its URL, SecretKey and
	// WebhookSecret), with rate limits off: a suite's retries must reach
	// the PSP, not bounce off its token bucket.
	PSP     *fakepsp.PSP
	effects []Effects
}

// NewRecord starts a PSP recording into a fresh recorder; the spec's
// teardown closes it.
func NewRecord() *Record {
	ginkgo.GinkgoHelper()
	r := &Record{Rec: history.NewRecorder()}
	var err error
	r.PSP, err = fakepsp.Start(fakepsp.Config{KeyWindow: 24 * time.Hour, Recorder: r.Rec,
		RateLimits: fakepsp.RateLimits{Disabled: true}})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(r.PSP.Close)
	return r
}

// AddEffects adds ground truth that History reads at check time (the
// ledger's credits, a worker's, your service's own table of charges).
func (r *Record) AddEffects(e ...Effects) { r.effects = append(r.effects, e...) }

// History is the recorder's ops and every effect read now. It asserts the
// recorder and the PSP refused nothing: a history with ops missing would
// prove nothing. Calling it twice reads the effects twice, adding nothing
// twice.
func (r *Record) History(ctx context.Context) history.History {
	ginkgo.GinkgoHelper()
	gomega.Expect(r.Rec.Errors()).To(gomega.BeEmpty(), "the recorder refused operations")
	gomega.Expect(r.PSP.RecorderErr()).NotTo(gomega.HaveOccurred(), "the PSP's recorder refused operations")
	h := r.Rec.History()
	for _, e := range r.effects {
		ops, err := e.Effects(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading effects")
		h = append(h, ops...)
	}
	return h
}
