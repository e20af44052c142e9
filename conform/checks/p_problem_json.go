package checks

import (
	"context"
	"mime"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func vProblem(ctx context.Context, e *scenario.Env, t *scenario.T) {
	p := e.Cfg.Proto()
	in := e.NewIntent(0)
	a := t.Send(ctx, "no key (an error answer)", in, func(s *driver.Send) { s.KeyMode = driver.KeyOmit; s.NoHistory = true })
	if !scenario.Created(e, t, scenario.SendUntilFinal(ctx, t, "create", in, nil)) {
		return
	}
	ch := in
	ch.Meaning.Amount = e.NewIntent(0).Meaning.Amount
	m := t.Send(ctx, "mismatch (an error answer)", ch, nil)
	member := p.ProblemCode
	if member == "" {
		member = "code"
	}
	for _, x := range []*driver.Attempt{a, m} {
		if x.Status < 400 {
			continue
		}
		ct, _ := x.Header("Content-Type")
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "application/problem+json" {
			t.Deviation(t.Check.Rule, "error %d has Content-Type %q", x.Status, ct)
			continue
		}
		if _, ok := driver.JSONPath([]byte(x.RespBody), member); !ok {
			t.Deviation(t.Check.Rule, "error %d lacks the %q member", x.Status, member)
		}
	}
	t.Passf("errors are problem+json with %q", member)
}
