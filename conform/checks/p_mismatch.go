package checks

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// vMismatch sends, under one finished key, each meaning field changed alone:
// every one must get the profile's mismatch answer.
func vMismatch(ctx context.Context, e *scenario.Env, t *scenario.T) {
	in := e.NewIntent(0)
	if !scenario.Created(e, t, scenario.SendUntilFinal(ctx, t, "create", in, nil)) {
		return
	}
	fields, _ := e.MeaningFields()
	var answers []string
	for _, field := range fields {
		m := t.Send(ctx, "same key, "+field+" changed", e.Changed(in, field), nil)
		if why := scenario.MismatchOK(e, m); why != "" {
			t.Deviation(t.Check.Rule, "mismatch of %s %s", field, why)
		}
		answers = append(answers, fmt.Sprintf("%s %d", field, m.Status))
	}
	t.Passf("mismatch answered %s", strings.Join(answers, ", "))
}
