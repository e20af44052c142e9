package conform

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// rabbitConfig2 is rabbitConfig with two instances of the consumer on the
// one queue, crediting into a database named db.
func rabbitConfig2(t *testing.T, w rabbitWorld, flaw, db string) string {
	c := rabbitConfigIn(t, w, flaw, db)
	c = strings.Replace(c, `["http://127.0.0.1:${PORT_0}"]`, `["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]`, 1)
	return strings.Replace(c, "  ready: /healthz\n", "  ready: /healthz\n  instances: 2\n", 1)
}

// aloneWave finds the records Q-kill's lone kill found credited.
var aloneWave = regexp.MustCompile(`instance 0 of 2 SIGKILLed alone with \[([^\]]*)\] all credited: the broker redelivered \d+ message\(s\)`)

// TestRabbitMQSecondConsumerGetsTheUnacked: with two instances on one
// queue, Q-kill kills one alone while it holds a credited message not yet
// acked; RabbitMQ redelivers it to the live instance (its redeliver
// counter grows), which must not credit it again: a dedup in one process's
// memory, or none, credits it twice, caught on that message; the correct
// consumer passes saying so. Q-poison runs with one instance (the other
// killed and restarted): a consumer that requeues a poison forever is
// still caught losing the messages behind it.
func TestRabbitMQSecondConsumerGetsTheUnacked(t *testing.T) {
	w := newRabbitWorld(t)
	const dc, lost = checker.KindDoubleCredit, checker.KindLostEffect
	for _, c := range []struct {
		flaw  string
		only  []string
		kinds map[string][]string
	}{
		{"none", []string{"Q-kill", "Q-poison"}, map[string][]string{}},
		{"memory-dedup", []string{"Q-kill"}, map[string][]string{"Q-kill": {dc}}},
		{"no-dedup", []string{"Q-kill"}, map[string][]string{"Q-kill": {dc}}},
		{"poison-requeue", []string{"Q-poison"}, map[string][]string{"Q-poison": {lost}}},
	} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, rabbitConfig2(t, w, c.flaw, "two_"+c.flaw), Options{Only: c.only})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			if got := findingKinds(rep.Results, c.only); fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				t.Errorf("kinds %v, want %v\n%s", got, c.kinds, out)
			}
			byID := map[string]scenario.Result{}
			for _, r := range rep.Results {
				byID[r.ID] = r
			}
			if slices.Contains(c.only, "Q-kill") {
				m := aloneWave.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("Q-kill did not kill one instance alone holding a credited message:\n%s", out)
				}
				kill := byID["Q-kill"]
				if len(c.kinds) == 0 {
					if kill.Verdict != scenario.Pass || !strings.Contains(kill.Why, m[0]) {
						t.Errorf("Q-kill: %s %s, want a pass saying %q", kill.Verdict, kill.Why, m[0])
					}
				} else if !caughtOn(kill.Findings, strings.Fields(m[1])) {
					// The restart after killing both would catch these flaws
					// too: the lone kill's own message must be among them.
					t.Errorf("no double credit of a message the live instance got (%s): %+v", m[1], kill.Findings)
				}
			}
			if p, ok := byID["Q-poison"]; ok && len(c.kinds) == 0 && (p.Verdict != scenario.Pass || !strings.Contains(p.Why, "run with instance 0 alone (the other 1 SIGKILLed before and restarted after)")) {
				t.Errorf("Q-poison: %s %s, want a pass run with one instance", p.Verdict, p.Why)
			}
			wantCode := ExitViolation
			if len(c.kinds) == 0 {
				wantCode = ExitPass
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			assertRabbitRunGone(t, w, out)
		})
	}
}

// caughtOn: some double credit names one of recs ("evt_x@place").
func caughtOn(fs []scenario.Finding, recs []string) bool {
	for _, f := range fs {
		for _, r := range recs {
			ev, _, _ := strings.Cut(strings.Trim(r, ","), "@")
			if f.Kind == checker.KindDoubleCredit && strings.Contains(f.Message, "(event "+ev+",") {
				return true
			}
		}
	}
	return false
}
