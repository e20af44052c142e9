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

func TestNewFieldsValidate(t *testing.T) {
	cases := []struct{ edit, repl, field string }{
		{"    format: uuid", "    format: base64", "create.key.format"},
		{"    format: uuid", "    format: random\n    length: 4", "create.key.length"},
		{"converge_within: 20s", "converge_within: soon", "converge_within"},
		{"quiesce: 30s", "quiesce: -1s", "quiesce"},
		{"stop_grace: 5s", "stop_grace: a while", "target.stop_grace"},
		{"required: []", "required: [Z9]", "required[0]"},
		{"# ledger:\n#   url: \"http://127.0.0.1:${PORT_0}/ledger?order_id={{order_id}}\"", "ledger:\n  url: \"http://127.0.0.1:${PORT_0}/ledger\"", "ledger.url"},
	}
	for _, tc := range cases {
		if !strings.Contains(Starter, tc.edit) {
			t.Fatalf("starter lacks %q", tc.edit)
		}
		_, err := Parse("cfg.yaml", []byte(strings.Replace(Starter, tc.edit, tc.repl, 1)))
		var es Errors
		if !errors.As(err, &es) || es[0].Field != tc.field {
			t.Errorf("%q: got %v, want an error on %s", tc.repl, err, tc.field)
		}
	}
	c, err := Parse("cfg.yaml", []byte(strings.Replace(Starter, "required: []", "required: [A3, P-conflict]", 1)))
	if err != nil || c.ConvergeD().Seconds() != 20 || c.QuiesceD().Seconds() != 30 {
		t.Fatalf("safety IDs in required, defaults: %v", err)
	}
}

// TestFakePSPListenBeyondLoopbackNeedsOptIn: a container address for fakepsp
// is refused with an error naming the field and the opt-in, and accepted with
// fakepsp_allow_remote: true.
func TestFakePSPListenBeyondLoopbackNeedsOptIn(t *testing.T) {
	base := "  fakepsp: true\n"
	if !strings.Contains(Starter, base) {
		t.Fatalf("starter lacks %q", base)
	}
	remote := strings.Replace(Starter, base, base+"  fakepsp_listen: 0.0.0.0:12111\n", 1)
	_, err := Parse("cfg.yaml", []byte(remote))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Field != "effects.fakepsp_listen" || !strings.Contains(es[0].Error(), "fakepsp_allow_remote") {
		t.Fatalf("remote listen without the opt-in: got %v, want one error on effects.fakepsp_listen naming fakepsp_allow_remote", err)
	}
	optIn := strings.Replace(Starter, base, base+"  fakepsp_listen: 0.0.0.0:12111\n  fakepsp_allow_remote: true\n", 1)
	c, err := Parse("cfg.yaml", []byte(optIn))
	if err != nil || !c.Effects.FakePSPAllowRemote {
		t.Fatalf("remote listen with the opt-in: %v", err)
	}
	if _, err := Parse("cfg.yaml", []byte(strings.Replace(Starter, base, base+"  fakepsp_listen: 127.0.0.1:12111\n", 1))); err != nil {
		t.Fatalf("loopback listen: %v", err)
	}
}
