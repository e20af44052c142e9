package checks

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestChangedMeaningChangesEveryField: each changed-meaning intent sends
// one retry per meaning field, one field per retry, starting one field
// further on per intent, the same for the same seed: one such intent
// carried out covers every field.
func TestChangedMeaningChangesEveryField(t *testing.T) {
	body := `{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}`
	env := func() *scenario.Env {
		return &scenario.Env{Seed: 7, Cfg: &config.Config{Create: config.Request{Body: body}, Callers: []config.Caller{{Name: "u1"}}}}
	}
	plan := []Planned{{N: 1, Shape: ShapeChangedMeaning}, {N: 2, Shape: ShapePlain}, {N: 3, Shape: ShapeChangedMeaning}}
	sr := newShapeRun(env(), plan)
	all, _ := env().MeaningFields()
	if len(all) != 4 {
		t.Fatalf("meaning fields %v, want 4", all)
	}
	for _, n := range []int{1, 3} {
		got := slices.Sorted(slices.Values(sr.fields[n]))
		if !slices.Equal(got, slices.Sorted(slices.Values(all))) {
			t.Errorf("intent %d changes %v, want each of %v once", n, sr.fields[n], all)
		}
	}
	if len(sr.fields[2]) != 0 {
		t.Errorf("a plain intent changes %v", sr.fields[2])
	}
	if sr.fields[1][0] == sr.fields[3][0] {
		t.Errorf("intents 1 and 3 both start with %s", sr.fields[1][0])
	}
	if again := newShapeRun(env(), plan); !slices.Equal(again.fields[1], sr.fields[1]) || !slices.Equal(again.fields[3], sr.fields[3]) {
		t.Errorf("one seed, two orders: %v %v, then %v %v", sr.fields[1], sr.fields[3], again.fields[1], again.fields[3])
	}
}
