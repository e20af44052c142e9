package fakepsp

import (
	"errors"
	"io"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// OpRecorder receives every ground-truth op as it happens; *history.Recorder
// satisfies it.
type OpRecorder = core.OpRecorder

// RecorderErr is the first error Config.Recorder returned, if any.
func (p *PSP) RecorderErr() error { return p.truth.RecorderErr() }

// WriteHistory writes every charge and refund as JSON Lines (HISTORY.md).
// A history that cannot be read whole is an error, and nothing is written.
func (p *PSP) WriteHistory(w io.Writer) error {
	ops, err := p.truth.OpsErr("")
	if err != nil {
		return err
	}
	return core.WriteJSONL(w, ops)
}

// ReadError returns, and forgets, the first read of the PSP's logs on disk
// (its ground truth, calls, deliveries, and the dialect's records that keep
// one: Stripe's events and PaymentIntents) that failed since it was last
// asked: the reads returned fewer records than were logged, or an object
// that exists could not be read, so a check that read them judged a truth
// it did not have (conform/scenario's TruthReader, as Remote's ReadError
// for a PSP over the network).
func (p *PSP) ReadError() error {
	var api error
	if r, ok := p.api.(interface{ ReadErr() error }); ok {
		api = r.ReadErr()
	}
	return errors.Join(p.truth.ReadErr(), p.calls.ReadErr(), p.dlog.ReadErr(), api)
}
