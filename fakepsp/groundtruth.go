package fakepsp

import (
	"io"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// OpRecorder receives every ground-truth op as it happens; *history.Recorder
// satisfies it.
type OpRecorder = core.OpRecorder

// RecorderErr is the first error Config.Recorder returned, if any.
func (p *PSP) RecorderErr() error { return p.truth.RecorderErr() }

// WriteHistory writes every charge and refund as JSON Lines (HISTORY.md).
func (p *PSP) WriteHistory(w io.Writer) error { return core.WriteJSONL(w, p.truth.Ops("")) }
