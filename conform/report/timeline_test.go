package report

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestTimeLineSaysWhatTheWallTimeWasMadeOf: the waits by reason, their sum,
// and the rest of the wall time; a run that waited for nothing says its time
// alone.
func TestTimeLineSaysWhatTheWallTimeWasMadeOf(t *testing.T) {
	r := &Report{Elapsed: 47600 * time.Millisecond, Waits: []scenario.Wait{
		{Reason: scenario.WaitQuiet, Total: 30 * time.Second},
		{Reason: scenario.WaitSettle, Total: 5700 * time.Millisecond},
		{Reason: scenario.WaitBackoff, Total: 2100 * time.Millisecond}}}
	want := "time: 47.6s, of which waits by design 37.8s (quiet period 30.0s, settle 5.7s, retry backoff 2.1s); the rest 9.8s (requests, faults, the harness)"
	if got := TimeLine(r); got != want {
		t.Errorf("TimeLine =\n%s\nwant\n%s", got, want)
	}
	if got := TimeLine(&Report{Elapsed: 1500 * time.Millisecond}); got != "time: 1.5s" {
		t.Errorf("no waits: %q", got)
	}
}
