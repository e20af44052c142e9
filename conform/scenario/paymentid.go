package scenario

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// notePaymentID checks the path on a create's success answer.
func (e *Env) notePaymentID(a *driver.Attempt) {
	p := e.Cfg.Outcomes.PaymentID
	if p == "" || a.Outcome != history.OutcomeSucceeded || a.PaymentID != "" {
		return
	}
	// A wrong path would leave every payment without an id, and the checks
	// that tell payments apart by it (A6, the judge's "succeeded on
	// another's charge") would pass without looking.
	e.badPath.Do(func() {
		e.badPathErr = config.FieldError{File: e.Cfg.File, Line: e.Cfg.Line("outcomes.payment_id"), Field: "outcomes.payment_id",
			Msg: fmt.Sprintf("%q matches nothing in the first success answer (#%d %s %s -> %d %s): name the payment id's field in it (a dotted path: id, data.payment.id)",
				p, a.Seq, a.Method, a.URL, a.Status, oneLine(a.RespBody, 300))}
		e.badPathSeen.Store(true)
	})
}

// PaymentIDError is the config error of an outcomes.payment_id path that
// matched nothing in a success answer, once one was seen; nil otherwise.
func (e *Env) PaymentIDError() error {
	if !e.badPathSeen.Load() {
		return nil
	}
	return e.badPathErr
}

func oneLine(s string, n int) string {
	b := []rune(s)
	for i, r := range b {
		if r == '\n' || r == '\r' || r == '\t' {
			b[i] = ' '
		}
	}
	if len(b) > n {
		return string(b[:n-3]) + "..."
	}
	return string(b)
}
