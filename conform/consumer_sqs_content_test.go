package conform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// sqsContentConfig is sqsConfig on a FIFO queue with content-based dedup,
// its message stamped with its send time.
func sqsContentConfig(flaw, endpoint, dsn string) string {
	c := sqsConfig(flaw, endpoint, dsn, "  fifo: true\n  content_dedup: true\n")
	return strings.Replace(c, `"merchant": "{{merchant}}"}'`, `"merchant": "{{merchant}}", "sent_at": {{now_ns}}}'`, 1)
}

// TestSQSContentDedupStampedCopy: on a FIFO queue with content-based
// dedup, Q-dup's retry whose body differs only by its send timestamp goes
// without a dedup id, SQS stores it as a second message, and it is judged
// at once, before the 5-minute window the run cannot wait: a consumer
// without dedup, or one that dedups by a hash of the whole body, is caught
// with double-credit (never lost to the window's inconclusive); the
// correct one credits it once, and Q-dup is inconclusive only for the
// late copy, saying the stamped copy was exercised.
func TestSQSContentDedupStampedCopy(t *testing.T) {
	w := newSQSWorld(t)
	for _, c := range []struct {
		flaw    string
		verdict scenario.Verdict
		kinds   map[string][]string
	}{
		{"none", scenario.Inconclusive, map[string][]string{}},
		{"no-dedup", scenario.Violation, map[string][]string{"Q-dup": {checker.KindDoubleCredit}}},
		{"body-hash-dedup", scenario.Violation, map[string][]string{"Q-dup": {checker.KindDoubleCredit}}},
	} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, sqsContentConfig(c.flaw, w.endpoint, w.database(t, "content_"+strings.ReplaceAll(c.flaw, "-", "_"))), Options{Only: []string{"Q-dup"}})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			if got := findingKinds(rep.Results, []string{"Q-dup"}); fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				t.Errorf("kinds %v, want %v\n%s", got, c.kinds, out)
			}
			i := slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "Q-dup" })
			if i < 0 {
				t.Fatalf("no Q-dup result\n%s", out)
			}
			r := rep.Results[i]
			if r.Verdict != c.verdict {
				t.Errorf("Q-dup: %s %s, want %s", r.Verdict, r.Why, c.verdict)
			}
			stored := "re-produced without a dedup id under content-based dedup: the broker stored it as a second message (message id "
			switch c.verdict {
			case scenario.Violation:
				// One payment, the stamped one, credited twice: the copy in
				// a row carried its dedup id and SQS dropped it.
				if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Message, "credited 2 times for one payment (2 record(s) of it produced)") || !strings.Contains(r.Findings[0].Message, stored) {
					t.Errorf("findings %+v, want one double credit of the stamped payment quoting %q", r.Findings, stored)
				}
			default:
				want := "the late copy with its first's dedup id was not sent; the consumer's dedup was exercised only by the copy whose body differs only by its send timestamp"
				if !strings.Contains(r.Why, want) || !strings.Contains(r.Why, stored) || !strings.Contains(r.Why, "held 0 visible, 0 in flight, 0 delayed") {
					t.Errorf("Q-dup does not say what the stamped copy showed (%q, %q):\n%s", want, stored, r.Why)
				}
			}
			if !strings.Contains(out, "(FIFO, a 5m0s dedup window, content-based dedup, visibility timeout 1s)") {
				t.Errorf("the run does not say its queue dedups by content:\n%s", out)
			}
			if code != ExitViolation {
				t.Errorf("exit %d, want %d (a violation or an inconclusive check fails the run)", code, ExitViolation)
			}
			assertSQSRunGone(t, w.endpoint, out)
		})
	}
}
