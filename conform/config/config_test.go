package config

import (
	"errors"
	"strings"
	"testing"
)

func TestStarterValidates(t *testing.T) {
	c, err := Parse("idemcheck.yaml", []byte(Starter))
	if err != nil {
		t.Fatalf("starter config does not validate: %v", err)
	}
	if c.Proto().MismatchStatus != 422 || c.RetryHorizonD().Hours() != 24 || c.Create.Key.Header != "Idempotency-Key" {
		t.Fatalf("defaults not applied: %+v", c.Proto())
	}
}

func TestErrorsNameFileLineField(t *testing.T) {
	cases := []struct {
		name, edit, field string
		line              int
	}{
		{"bad duration", "retry_horizon: 24h", "retry_horizon", 0},
		{"bad outcome", "{status: [402], outcome: failed}", "outcomes.rules[2].outcome", 0},
		{"unknown field", "concurrency: 8", "concurency", 0},
		{"bad profile", "profile: ietf", "profile", 0},
	}
	repl := map[string]string{
		"bad duration":  "retry_horizon: soon",
		"bad outcome":   "{status: [402], outcome: declined}",
		"unknown field": "concurency: 8",
		"bad profile":   "profile: paypal",
	}
	for _, tc := range cases {
		text := strings.Replace(Starter, tc.edit, repl[tc.name], 1)
		wantLine := 1 + strings.Count(text[:strings.Index(text, repl[tc.name])], "\n")
		_, err := Parse("cfg.yaml", []byte(text))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 {
			t.Fatalf("%s: want one FieldError, got %v", tc.name, err)
		}
		e := es[0]
		if e.File != "cfg.yaml" || e.Line != wantLine || e.Field != tc.field {
			t.Errorf("%s: got %s (line %d field %q), want line %d field %q", tc.name, e, e.Line, e.Field, wantLine, tc.field)
		}
	}
}
