package dedup

import (
	"context"
	"testing"
	"time"
)

func TestFingerprintSeparatesFields(t *testing.T) {
	a := Fingerprint("u1", "invoice_overdue", "inv_1")
	if a != Fingerprint("u1", "invoice_overdue", "inv_1") {
		t.Fatal("fingerprint is not deterministic")
	}
	for _, other := range []string{
		Fingerprint("u2", "invoice_overdue", "inv_1"),
		Fingerprint("u1", "invoice_paid", "inv_1"),
		Fingerprint("u1", "invoice_overdue", "inv_2"),
		Fingerprint("u1invoice_overdue", "", "inv_1"),
	} {
		if other == a {
			t.Fatalf("two different messages share fingerprint %s", a)
		}
	}
}

func TestWindowSecondsRoundsUp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {time.Hour, 3600}} {
		if got := windowSeconds(c.d); got != c.want {
			t.Errorf("windowSeconds(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func TestOffGuardSendsEverything(t *testing.T) {
	for _, g := range []*Guard{{Off: true}, {}} {
		v, err := g.Accept(context.Background(), "u1", "fp", "ev")
		if err != nil || v != Unguarded {
			t.Fatalf("Accept = %v, %v; want unguarded", v, err)
		}
	}
}
