package campaign

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestWholeHistoryFindingTakesItsOwnIntentsMechanism: a checker finding of
// the whole history carries every request of the run; its mechanism and
// time are its own intent's, not those of the run's first request (seed 36
// put a notification-stacked on intent 1's payment down to intent 2's
// fault). With no request of its intent among them, the first one still
// names it.
func TestWholeHistoryFindingTakesItsOwnIntentsMechanism(t *testing.T) {
	const own = "payments:u2:k3"
	r := chaosReport(4, scenario.Violation, "", nil)
	res := &r.Results[0]
	res.Attempts = []*driver.Attempt{
		{Seq: 1, Step: "chaos: intent 1 copy 1 (no-fault)", Intent: "payments:u1:k1", Call: t0.Add(time.Second).UnixNano()},
		{Seq: 7, Step: "chaos: intent 3 copy 1 (psp-reply-lost)", Intent: own, Call: t0.Add(5 * time.Second).UnixNano()},
		{Seq: 9, Step: "chaos: intent 3 retry", Intent: own, Call: t0.Add(6 * time.Second).UnixNano()},
	}
	res.Findings = []scenario.Finding{
		{Level: scenario.Safety, Kind: "notification-stacked", Intent: own, Message: "recipient u2: payment pay_3 stacked", Seqs: []int{1, 7, 9}},
		{Level: scenario.Safety, Kind: "double-credit", Intent: "payments:u3:elsewhere", Message: "m1 read high", Seqs: []int{1, 7, 9}},
	}
	sr := fromReport(r, nil, "seed-4.json")
	if len(sr.Findings) != 2 {
		t.Fatalf("findings %+v, want 2", sr.Findings)
	}
	if got, want := sr.Findings[0].Mechanism, "fault psp-reply-lost, 2 copies, shape late-retry"; got != want {
		t.Errorf("mechanism %q, want %q (its own intent 3's)", got, want)
	}
	if got, want := sr.Findings[0].Detected, t0.Add(5*time.Second).UTC(); !got.Equal(want) {
		t.Errorf("detected %v, want %v (intent 3's first request)", got, want)
	}
	if got, want := sr.Findings[1].Mechanism, "fault no-fault"; got != want {
		t.Errorf("mechanism %q, want %q (no request of its intent: the first request's)", got, want)
	}
}
