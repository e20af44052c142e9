package fakepsp

import (
	"slices"
	"strings"
	"testing"
)

// A PSP speaks the dialect its Config names, Stripe's by default; an
// unknown name is refused at Start with the names there are.
func TestConfigPicksTheDialect(t *testing.T) {
	if !slices.Contains(Dialects(), DefaultDialect) {
		t.Fatalf("Dialects() = %v: the default %q is not registered", Dialects(), DefaultDialect)
	}
	p, err := Start(Config{Dialect: "nosuchpsp"})
	if err == nil {
		_ = p.Close()
		t.Fatal("Start with an unknown dialect succeeded")
	}
	if !strings.Contains(err.Error(), `"nosuchpsp"`) || !strings.Contains(err.Error(), DefaultDialect) {
		t.Fatalf("error %q does not name the dialect asked for and the ones there are", err)
	}
	p = start(t, Config{Dialect: DefaultDialect})
	if p.dialect.Name() != DefaultDialect || !strings.HasPrefix(p.SecretKey(), "sk_test_") {
		t.Fatalf("dialect %q, key %q", p.dialect.Name(), p.SecretKey())
	}
}
