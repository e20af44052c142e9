package scenario

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
)

// unreadablePSP is a PSP reached by URL whose ground truth did not answer:
// Charges is nil and ReadError says why (fakepsp.Remote).
type unreadablePSP struct{ err, failed error }

func (p *unreadablePSP) URL() string           { return "http://127.0.0.1:1" }
func (p *unreadablePSP) Charges() []history.Op { p.failed = p.err; return nil }
func (p *unreadablePSP) Refunds() []history.Op { p.failed = p.err; return nil }
func (p *unreadablePSP) ReadError() error      { err := p.failed; p.failed = nil; return err }

// pspOf is the effects of a PSP's ground truth, as conform's pspEffects:
// its Charges never fail, a failed read is the PSP's ReadError.
type pspOf struct{ p PSP }

func (x pspOf) Charges(context.Context) ([]history.Op, error) { return x.p.Charges(), nil }
func (x pspOf) Count(context.Context) (int64, error)          { return int64(len(x.p.Charges())), nil }

// TestRecountUnreadablePSPIsErrored: a PSP whose charges could not be read
// at the recount made no attribution, which the recount took for a plain
// counter's: n/a, which does not fail the run, over late charges it never
// saw. It is Errored with the read error.
func TestRecountUnreadablePSPIsErrored(t *testing.T) {
	psp := &unreadablePSP{err: errors.New("GET /_psp/history?op=charge: connection refused")}
	e := &Env{Cfg: &config.Config{}, PSP: psp, Effects: pspOf{psp}}
	sentAs(e, "ord-a", 10, "p:u1:k1")
	e.Judged("ord-a", 1, 1, -1)
	rs := Recount(context.Background(), e, nil)
	r := rs[len(rs)-1]
	if r.Verdict != Errored || !strings.Contains(r.Why, "connection refused") {
		t.Fatalf("verdict %s (%s), want Errored quoting the PSP's read error", r.Verdict, r.Why)
	}
}
