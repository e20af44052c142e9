package fakepsp

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// What the PSP keeps on disk leaves no file behind: the file loses its name
// as soon as it is made, and Close closes it.
func TestSpillFileIsGoneAfterClose(t *testing.T) {
	p, err := Start(Config{RateLimits: RateLimits{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create", form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1")), 200)
	path := p.spill.Path()
	if path == "" {
		t.Fatal("a keyed answer was saved but nothing was written to disk")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s has a name while the PSP runs: %v", path, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s exists after Close: %v", path, err)
	}
	if _, err := p.spill.Put([]byte("x")); err == nil {
		t.Fatal("the store still takes writes after Close")
	}
}

// A saved answer that cannot be read back is a 500 saying so, never
// another body and never a second execution.
func TestReplayThatCannotBeReadIs500(t *testing.T) {
	p := start(t, Config{})
	first := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "create", first, 200)
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	again := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "replay", again, 500)
	if again.errType() != "api_error" || !strings.Contains(again.errField("message"), "saved answer of idempotency key k1 cannot be read back") {
		t.Fatalf("replay answer: %s", again.raw)
	}
	wantCharges(t, p, 1)
}
