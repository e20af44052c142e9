package shrink

import (
	"context"
	"testing"

	"github.com/idemcheck/idemcheck/conform/checks"
)

// plan80 is a drawn schedule of 80 intents.
func plan80() []checks.Planned {
	names := []string{"psp-reply-lost", "psp-slow", "client-timeout", "restart"}
	return checks.Schedule(7, names, 2, 80, checks.ShapePlain, checks.ShapeReordered)
}

// TestDdminFindsTheTwoIntentsThatMatter: a failure that needs one intent
// with a lost PSP reply and two copies, and a later one that borrows a key,
// shrinks to those two, each made as plain as the failure allows.
func TestDdminFindsTheTwoIntentsThatMatter(t *testing.T) {
	p := plan80()
	var runs int
	test := func(_ context.Context, c []checks.Planned) (bool, error) {
		runs++
		lost, borrowed := false, false
		for _, x := range c {
			if x.Fault == "psp-reply-lost" && x.Copies >= 2 {
				lost = true
			}
			if x.KeyOf > 0 && lost {
				borrowed = true
			}
		}
		return lost && borrowed, nil
	}
	// Make sure the drawn schedule has what the failure needs.
	p[10].Fault, p[10].Copies = "psp-reply-lost", 2
	p[40].KeyOf = 3
	if ok, _ := test(context.Background(), p); !ok {
		t.Fatal("the full schedule does not fail")
	}
	runs = 0
	c, err := ddmin(context.Background(), p, test, func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	c, _ = simplify(context.Background(), c, test, func() bool { return true })
	if len(c) != 2 {
		t.Fatalf("shrunk to %d intents, want 2: %v", len(c), c)
	}
	if c[0].Fault != "psp-reply-lost" || c[0].Copies != 2 || c[1].KeyOf != 1 || c[1].Fault != checks.NoFault || c[0].Delay != 0 {
		t.Fatalf("shrunk schedule %v; want a lost reply with 2 copies, then a borrowed key with no fault", c)
	}
	t.Logf("80 intents to %d in %d tests", len(c), runs)
	if runs > 150 {
		t.Errorf("%d tests: delta debugging should take far fewer", runs)
	}
}

func TestBudgetStopsWithTheBestSoFar(t *testing.T) {
	p := plan80()
	n := 0
	c, err := ddmin(context.Background(), p, func(context.Context, []checks.Planned) (bool, error) { return true, nil }, func() bool { n++; return n <= 3 })
	if err != nil || len(c) >= len(p) || len(c) == 0 {
		t.Fatalf("got %d intents (err %v); want fewer than %d and more than none", len(c), err, len(p))
	}
}
