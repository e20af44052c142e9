package worker

import (
	"reflect"
	"testing"
)

func TestMarkFreshMarksTheFirstLiveCopyOfEachNewEvent(t *testing.T) {
	live := func(id string) item { return item{m: message{eventID: id}} }
	items := []item{
		{m: message{eventID: "ev_7"}, dead: "malformed: x"}, // a dead copy claims nothing
		live("ev_7"), live("ev_7"), live("ev_8"), live("ev_9"), live("ev_8"),
	}
	// ev_9 was seen by an earlier batch: the inbox did not take it in.
	markFresh(items, []string{"ev_8", "ev_7"})
	var got []bool
	for _, it := range items {
		got = append(got, it.fresh)
	}
	if want := []bool{false, true, false, true, false, false}; !reflect.DeepEqual(got, want) {
		t.Fatalf("fresh = %v, want %v", got, want)
	}
}
