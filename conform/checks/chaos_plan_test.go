package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlanFileRoundTrip(t *testing.T) {
	plan := Schedule(9, []string{"psp-reply-lost", "psp-slow"}, 2, 12, ShapePlain, ShapeReordered)
	p := filepath.Join(t.TempDir(), "s.json")
	if err := WritePlan(p, 9, 3*time.Second, "note", plan); err != nil {
		t.Fatal(err)
	}
	f, got, err := ReadPlan(p)
	if err != nil || f.Seed != 9 || !slices.Equal(got, plan) {
		t.Fatalf("read back %v (err %v, seed %d); want the written plan", got, err, f.Seed)
	}
}

// TestPlanFileErrorsNameTheField: a hand-edited schedule's mistake is named
// by file, intent and field.
func TestPlanFileErrorsNameTheField(t *testing.T) {
	good := `{"schedule_schema_version":1,"seed":"3","intents":[{"n":1,"caller":0,"fault":"none","copies":1,"delay":"0s"},%s]}`
	for _, tc := range []struct{ entry, want string }{
		{`{"n":3,"caller":0,"fault":"none","copies":1,"delay":"0s"}`, "intents[1].n: 3, want 2"},
		{`{"n":2,"caller":0,"fault":"none","copies":0,"delay":"0s"}`, "intents[1].copies: 0"},
		{`{"n":2,"caller":0,"fault":"none","copies":1,"delay":"soon"}`, `intents[1].delay: "soon"`},
		{`{"n":2,"caller":0,"fault":"none","copies":1,"delay":"0s","key_of":2}`, "intents[1].key_of: 2 is not an earlier intent"},
		{`{"n":2,"caller":0,"fault":"none","copies":1,"delay":"0s","shape":"sideways"}`, `intents[1].shape: "sideways"`},
		{`{"n":2,"caller":0,"copies":1,"delay":"0s"}`, "intents[1].fault: missing"},
	} {
		p := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(p, []byte(strings.Replace(good, "%s", tc.entry, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadPlan(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v; want it to name %s and %q", tc.entry, err, p, tc.want)
		}
	}
}

func TestRenumberDropsAGoneKey(t *testing.T) {
	plan := []Planned{{N: 2, Fault: NoFault, Copies: 1}, {N: 5, Fault: NoFault, Copies: 1, KeyOf: 2}, {N: 7, Fault: NoFault, Copies: 1, KeyOf: 4}}
	got := Renumber(plan)
	if got[0].N != 1 || got[1].N != 2 || got[1].KeyOf != 1 || got[2].N != 3 || got[2].KeyOf != 0 {
		t.Fatalf("renumbered %+v", got)
	}
}
