package conform

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/broker/kafka"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/stack/services"
)

var queueIDs = []string{"Q-dup", "Q-kill", "Q-rebalance", "Q-poison"}

// queueConfig runs two creditsvc instances; brokers "" lets idemcheck
// start its own Kafka.
func queueConfig(flaw, brokers string) string {
	b := ""
	if brokers != "" {
		b = fmt.Sprintf("brokers: [%q]", brokers)
	}
	return fmt.Sprintf(`target:
  base_urls: ["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]
  command: [%q, "--flaw", %q]
  instances: 2
  ready: /healthz
  start_timeout: 15s
create:
  path: /payments
  key: {header: Idempotency-Key}
  body: '{"order_id": "{{order_id}}", "amount": {{amount}}}'
callers: [{name: u1}]
outcomes:
  payment_id: id
  rules:
    - {status: [201], outcome: succeeded}
effects:
  http_counter: {url: "http://127.0.0.1:${PORT_0}/count", field: count}
ledger:
  credits: {url: "http://127.0.0.1:${PORT_0}/credits?payment_id={{payment_id}}", list: data}
consumer:
  %s
  message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}, "merchant": "{{merchant}}", "order_id": "{{order_id}}"}'
timeout: 3s
settle: 150ms
converge_within: 6s
quiesce: 100ms
`, creditsvcBin, flaw, b)
}

// TestConsumerFlawsCaught: each consumer flaw is caught with exactly its
// kind by exactly the checks that can see it; the run leaves no topic and
// no group on the brokers.
func TestConsumerFlawsCaught(t *testing.T) {
	broker := testKafka(t)
	const dc, lost = checker.KindDoubleCredit, checker.KindLostEffect
	cases := []struct {
		flaw string
		want map[string][]string
	}{
		// Every redelivery credits again: the retried record, the one
		// redelivered after the kill, those redelivered at each rebalance.
		{"no-dedup", map[string][]string{"Q-dup": {dc}, "Q-kill": {dc}, "Q-rebalance": {dc}}},
		// One process remembers the copy it just credited; a restarted one,
		// or the instance a partition moves to, does not.
		{"memory-dedup", map[string][]string{"Q-kill": {dc}, "Q-rebalance": {dc}}},
		// The commit leads the credit by 450 ms: the kill after the commit,
		// and the crash of a leaving member after it, lose the credit.
		{"commit-before-credit", map[string][]string{"Q-kill": {lost}, "Q-rebalance": {lost}}},
		{"poison-stops", map[string][]string{"Q-poison": {lost}}},
		// The inbox mark is durable before the credit: a kill, or a leaving
		// member's crash, inside a record's processing loses the credit
		// (the redelivered copy finds the mark); the kill after the credit
		// and a graceful stop, which finishes the batch, do not.
		{"mark-before-credit", map[string][]string{"Q-kill": {lost}, "Q-rebalance": {lost}}},
		// Only a graceful stop inside a batch's processing drops it; a
		// SIGKILL leaves its offsets uncommitted and the batch redelivered.
		{"shutdown-rollback", map[string][]string{"Q-rebalance": {lost}}},
	}
	t.Cleanup(func() { assertNoQueueLeft(t, broker) })
	for _, c := range cases {
		t.Run(c.flaw, func(t *testing.T) {
			// Each run has its own topic and group on the shared broker.
			t.Parallel()
			code, rep, out := runText(t, queueConfig(c.flaw, broker), Options{Only: queueIDs})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			if got := findingKinds(rep.Results, queueIDs); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("kinds by check = %v, want %v\n%s", got, c.want, out)
			}
			for _, r := range rep.Results {
				if _, flagged := c.want[r.ID]; slices.Contains(queueIDs, r.ID) && !flagged && r.Verdict != scenario.Pass {
					t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
				}
			}
			if code != ExitViolation {
				t.Errorf("exit %d, want %d", code, ExitViolation)
			}
			assertRunQueueGone(t, broker, out)
		})
	}
}

// TestConsumerCorrectPasses: with no brokers configured idemcheck starts
// its own Kafka, and the correct consumer passes every Q check.
func TestConsumerCorrectPasses(t *testing.T) {
	code, rep, out := runText(t, queueConfig("none", ""), Options{Only: queueIDs})
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	var ids []string
	for _, r := range rep.Results {
		if !slices.Contains(queueIDs, r.ID) {
			continue // recount: n/a with a plain counter
		}
		ids = append(ids, r.ID)
		if r.Verdict != scenario.Pass {
			t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
		}
	}
	if !slices.Equal(ids, queueIDs) {
		t.Errorf("checks run %v, want %v", ids, queueIDs)
	}
	if !strings.Contains(out, "services: kafka") {
		t.Errorf("idemcheck did not start its own Kafka:\n%s", out)
	}
}

// testKafka starts a Kafka for the test's runs to share, stopped after it.
func testKafka(t *testing.T) string {
	t.Helper()
	st, err := services.Start(context.Background(), services.Options{Kafka: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	return st.Kafka.Endpoint()
}

// assertNoQueueLeft: no topic or group of a queue run is left on the broker.
func assertNoQueueLeft(t *testing.T, broker string) {
	t.Helper()
	assertQueueGone(t, broker, func(string) bool { return true })
}

// runQueue finds the topic and group a run printed it made.
var runQueue = regexp.MustCompile(`topic (idemcheck-q-\S+) \(\d+ partitions\), group (idemcheck-q-\S+) \(`)

// assertRunQueueGone: the topic and group of the run that printed out are
// not on the broker (other runs' may be: they share it).
func assertRunQueueGone(t *testing.T, broker, out string) {
	t.Helper()
	m := runQueue.FindStringSubmatch(out)
	if m == nil {
		t.Errorf("the run did not say which topic and group it made:\n%s", out)
		return
	}
	assertQueueGone(t, broker, func(n string) bool { return n == m[1] || n == m[2] })
}

func assertQueueGone(t *testing.T, broker string, ours func(string) bool) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	topics, groups := brokerNames(ctx, t, adm)
	for kind, names := range map[string][]string{"topic": topics.Names(), "group": groups} {
		for _, n := range names {
			if strings.HasPrefix(n, "idemcheck-q-") && ours(n) {
				t.Errorf("left on the broker after the run: %s %s", kind, n)
			}
		}
	}
}

// TestConsumerNeedsCommand: a consumer section on a service idemcheck does
// not start cannot be given the run's topic: exit 2 naming the line,
// before any Kafka starts.
func TestConsumerNeedsCommand(t *testing.T) {
	yaml := strings.Replace(queueConfig("none", ""), fmt.Sprintf("  command: [%q, \"--flaw\", %q]\n", creditsvcBin, "none"), "", 1)
	yaml = strings.Replace(yaml, `["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]`, `["http://127.0.0.1:1"]`, 1)
	yaml = strings.Replace(yaml, "  instances: 2\n", "", 1)
	yaml = strings.ReplaceAll(yaml, "${PORT_0}", "1")
	code, _, out := runText(t, yaml, Options{Only: queueIDs})
	if code != ExitUsage || !strings.Contains(out, "consumer: needs target.command") || strings.Contains(out, "services: kafka") {
		t.Fatalf("exit %d, want %d naming consumer: needs target.command before any Kafka:\n%s", code, ExitUsage, out)
	}
}

// TestConsumerChaos: run --chaos on a service with a consumer section
// streams records with the consumer faults beside the API traffic and
// judges every record's credits: the correct consumer passes, and the one
// without dedup is named double-credit by the chaos check.
func TestConsumerChaos(t *testing.T) {
	broker := testKafka(t)
	t.Cleanup(func() { assertNoQueueLeft(t, broker) })
	for _, c := range []struct {
		flaw string
		code int
		kind string
	}{{"none", ExitPass, ""}, {"no-dedup", ExitViolation, checker.KindDoubleCredit}} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, queueConfig(c.flaw, broker), Options{Chaos: true, Duration: 5 * time.Second, Seed: 9})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			var kinds []string
			for _, r := range rep.Results {
				for _, f := range r.Findings {
					if !slices.Contains(kinds, f.Kind) {
						kinds = append(kinds, f.Kind)
					}
				}
				if c.kind == "" && r.Verdict != scenario.Pass && r.Verdict != scenario.NA {
					t.Errorf("%s: %s %s", r.ID, r.Verdict, r.Why)
				}
			}
			want := []string{}
			if c.kind != "" {
				want = []string{c.kind}
			}
			if code != c.code || !slices.Equal(append([]string{}, kinds...), want) {
				t.Errorf("exit %d kinds %v, want exit %d kinds %v\n%s", code, kinds, c.code, want, out)
			}
			// A pass counts the stream's records and faults; a violation
			// names the consumer's record.
			if r := rep.Results[0]; r.ID != "chaos" || c.kind == "" && !strings.Contains(r.Why, "consumer stream:") ||
				c.kind != "" && !slices.ContainsFunc(r.Findings, func(f scenario.Finding) bool { return f.Rule == scenario.RuleQueue }) {
				t.Errorf("the chaos verdict does not judge the consumer stream: %s", r.Why)
			}
			assertRunQueueGone(t, broker, out)
		})
	}
}

// TestConsumerSweepsStaleRuns: a topic and group that a SIGKILLed run left
// on the user's brokers over an hour ago are deleted by the next run; one
// of a run under way (fresh, with a member) is not touched.
func TestConsumerSweepsStaleRuns(t *testing.T) {
	broker := testKafka(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stale := fmt.Sprintf("idemcheck-q-1-deadbeef-t%d", time.Now().Add(-2*time.Hour).Unix())
	fresh := fmt.Sprintf("idemcheck-q-1-0badcafe-t%d", time.Now().Unix())
	for _, name := range []string{stale, fresh} {
		if _, err := adm.CreateTopic(ctx, 1, -1, nil, name); err != nil {
			t.Fatal(err)
		}
		offs := kadm.Offsets{}
		offs.Add(kadm.Offset{Topic: name, Partition: 0, At: 0})
		if _, err := adm.CommitOffsets(ctx, name, offs); err != nil {
			t.Fatal(err)
		}
	}
	code, _, out := runText(t, queueConfig("none", broker), Options{Only: []string{"Q-dup"}})
	if code != ExitPass || !strings.Contains(out, "sweeping topic "+stale) {
		t.Fatalf("exit %d, want 0 with the stale run swept:\n%s", code, out)
	}
	topics, groups := brokerNames(ctx, t, adm)
	if topics.Has(stale) || slices.Contains(groups, stale) {
		t.Errorf("the stale run's topic or group is still there: topics %v groups %v", topics.Names(), groups)
	}
	if !topics.Has(fresh) {
		t.Errorf("the fresh run's topic was swept: %v", topics.Names())
	}
	kafka.Drop(adm, fresh, fresh, io.Discard)
	assertNoQueueLeft(t, broker)
}

// brokerNames are the broker's topics and groups.
func brokerNames(ctx context.Context, t *testing.T, adm *kadm.Client) (kadm.TopicDetails, []string) {
	t.Helper()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return topics, groups.Groups()
}
