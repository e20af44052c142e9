package scenario

import "github.com/idemcheck/idemcheck/checker/history"

// PSP is the ground truth of the fakepsp a run charges through, and the
// URL its faults are armed at.
type PSP interface {
	URL() string
	Charges() []history.Op
	Refunds() []history.Op
}

// TruthReader is a PSP whose reads can fail (one reached over the network):
// ReadError returns, and forgets, the first failure since it was last asked.
// A check during which one failed judged a ground truth it did not have.
type TruthReader interface {
	ReadError() error
}

func takeReadError(e *Env) error {
	if tr, ok := e.PSP.(TruthReader); ok {
		return tr.ReadError()
	}
	return nil
}
