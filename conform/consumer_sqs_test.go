package conform

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/stack/services"
)

// sqsWorld is an ElasticMQ and a Postgres that a test's runs share; each
// run has its own queues and its own database.
type sqsWorld struct {
	endpoint, postgres string
}

func newSQSWorld(t *testing.T) sqsWorld {
	t.Helper()
	st, err := services.Start(context.Background(), services.Options{SQS: true, Postgres: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	return sqsWorld{endpoint: st.SQS.Endpoint(), postgres: st.Postgres.Endpoint()}
}

// database makes a database of the run's own and returns its DSN.
func (w sqsWorld) database(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, w.postgres)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name = fmt.Sprintf("sqs_%d_%s", os.Getpid(), strings.ReplaceAll(name, "-", "_"))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(w.postgres)
	u.Path = "/" + name
	return u.String()
}

// sqsConfig is a consumer-only config of one sqscredit instance on the
// world's SQS, its credits read from its own database. The visibility
// timeout is 1 s so a redelivery after a kill comes within the run's
// bounds.
func sqsConfig(flaw, endpoint, dsn, extra string) string {
	return fmt.Sprintf(`target:
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  command: [%q, "--flaw", %q, "--dsn", %q]
  ready: /healthz
  start_timeout: 15s
consumer:
  broker: sqs
  brokers: [%q]
  visibility_timeout: 1s
%s  message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}, "merchant": "{{merchant}}"}'
  credits: {dsn: %q, query: "SELECT amount FROM credits WHERE payment_id = $2"}
timeout: 3s
settle: 150ms
converge_within: 6s
quiesce: 100ms
`, sqscreditBin, flaw, dsn, endpoint, extra, dsn)
}

// TestSQSConsumerFlawsCaught: each flaw of an SQS consumer on the official
// client is caught with exactly its kind by exactly the checks that can
// see it; the correct consumer passes; Q-rebalance is n/a on SQS, saying
// why; every run deletes its queues.
func TestSQSConsumerFlawsCaught(t *testing.T) {
	w := newSQSWorld(t)
	const dc, lost = checker.KindDoubleCredit, checker.KindLostEffect
	for _, c := range []struct {
		flaw string
		want map[string][]string
	}{
		{"none", map[string][]string{}},
		// The copy in a row, and the message redelivered after the kill,
		// are credited again.
		{"no-dedup", map[string][]string{"Q-dup": {dc}, "Q-kill": {dc}}},
		// One process remembers the copy it credited; the restarted one
		// does not, and the redelivered message is credited again.
		{"memory-dedup", map[string][]string{"Q-kill": {dc}}},
		// Deleted and then killed before the credit: never delivered again.
		{"delete-before-credit", map[string][]string{"Q-kill": {lost}}},
		// The messages received with the poison, and those after it, are
		// never received again.
		{"poison-stops", map[string][]string{"Q-poison": {lost}}},
	} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, sqsConfig(c.flaw, w.endpoint, w.database(t, c.flaw), ""), Options{Only: queueIDs})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			assertQueueVerdicts(t, "sqs", code, rep, out, c.want)
			assertSQSRunGone(t, w.endpoint, out)
		})
	}
}

// sqsRunQueue finds the queues a run printed it made.
var sqsRunQueue = regexp.MustCompile(`queue (idemcheck-q-\S+) \(.*dead-letter queue (idemcheck-q-\S+) after`)

// assertSQSRunGone: the queues of the run that printed out are not on the
// endpoint.
func assertSQSRunGone(t *testing.T, endpoint, out string) {
	t.Helper()
	m := sqsRunQueue.FindStringSubmatch(out)
	if m == nil {
		t.Errorf("the run did not say which queues it made:\n%s", out)
		return
	}
	cl := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), Credentials: credentials.NewStaticCredentialsProvider("x", "x", "")})
	ls, err := cl.ListQueues(context.Background(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String("idemcheck-q-")})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range ls.QueueUrls {
		if n := path.Base(u); n == m[1] || n == m[2] {
			t.Errorf("left on the endpoint after the run: queue %s", n)
		}
	}
}

// TestSQSFIFOCorrectConsumer: on a FIFO queue the correct consumer passes
// Q-kill and Q-poison; Q-dup's copy in a row falls inside SQS's 5-minute
// dedup window, and its late copy would have to wait that window out,
// longer than the run may wait: Q-dup is inconclusive saying so, never a
// pass on the server's dedup alone.
func TestSQSFIFOCorrectConsumer(t *testing.T) {
	w := newSQSWorld(t)
	code, rep, out := runText(t, sqsConfig("none", w.endpoint, w.database(t, "fifo"), "  fifo: true\n"), Options{Only: queueIDs})
	if rep == nil {
		t.Fatalf("no report (exit %d): %s", code, out)
	}
	want := map[string]string{
		"Q-dup":    "inconclusive",
		"Q-kill":   "pass",
		"Q-poison": "pass",
	}
	for _, r := range rep.Results {
		if v, ok := want[r.ID]; ok && string(r.Verdict) != v {
			t.Errorf("%s: %s %s, want %s", r.ID, r.Verdict, r.Why, v)
		}
	}
	dup := "a copy reached the consumer past the broker's dedup window: the window (5m0s) is longer than the run may wait (30s): only the broker's dedup was exercised, not the consumer's"
	if i := slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "Q-dup" }); i < 0 || !strings.Contains(rep.Results[i].Why, dup) {
		t.Errorf("Q-dup does not say why it is inconclusive (%q)\n%s", dup, out)
	}
	if !strings.Contains(out, "inside the broker's 5m0s dedup window: the broker is to drop it") || !strings.Contains(out, "(FIFO, a 5m0s dedup window, visibility timeout 1s)") {
		t.Errorf("the run does not say the copy fell inside the FIFO queue's window:\n%s", out)
	}
	if code != ExitViolation {
		t.Errorf("exit %d, want %d (an inconclusive check fails the run)", code, ExitViolation)
	}
	assertSQSRunGone(t, w.endpoint, out)
}

// TestSQSFIFOLateCopyAfterTheWindow: with --max-wait past SQS FIFO's
// 5-minute window Q-dup waits it out (saying how long): the copy in a row
// is dropped by the server, the late copy is delivered again, so a
// consumer without dedup credits that payment twice and the correct one
// passes. It takes over 5 minutes: it runs only with
// IDEMCHECK_SQS_WINDOW=1.
func TestSQSFIFOLateCopyAfterTheWindow(t *testing.T) {
	if os.Getenv("IDEMCHECK_SQS_WINDOW") != "1" {
		t.Skip("waits SQS FIFO's 5-minute dedup window: set IDEMCHECK_SQS_WINDOW=1")
	}
	w := newSQSWorld(t)
	for _, c := range []struct {
		flaw  string
		kinds map[string][]string
	}{{"none", map[string][]string{}}, {"no-dedup", map[string][]string{"Q-dup": {checker.KindDoubleCredit}}}} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			// runText's runs are bounded by 3 minutes: this one waits longer.
			p := filepath.Join(t.TempDir(), "idemcheck.yaml")
			if err := os.WriteFile(p, []byte(sqsConfig(c.flaw, w.endpoint, w.database(t, "window_"+c.flaw), "  fifo: true\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			code, rep := Run(ctx, Options{Config: p, Seed: 42, Only: []string{"Q-dup"}, MaxWait: 6 * time.Minute, Stdout: &stdout, Stderr: &stderr})
			out := stdout.String() + stderr.String()
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			if got := findingKinds(rep.Results, []string{"Q-dup"}); fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				t.Errorf("kinds %v, want %v\n%s", got, c.kinds, out)
			}
			for _, say := range []string{"waiting ", "for the broker's 5m0s dedup window over", "outside the broker's 5m0s dedup window: the broker delivers it again"} {
				if !strings.Contains(out, say) {
					t.Errorf("the run does not say %q:\n%s", say, out)
				}
			}
			if len(c.kinds) == 0 && code != ExitPass {
				t.Errorf("exit %d, want %d", code, ExitPass)
			}
		})
	}
}

// sqsConfig2 is sqsConfig with two instances of the consumer.
func sqsConfig2(flaw, endpoint, dsn string) string {
	c := sqsConfig(flaw, endpoint, dsn, "")
	c = strings.Replace(c, `["http://127.0.0.1:${PORT_0}"]`, `["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]`, 1)
	return strings.Replace(c, "  ready: /healthz\n", "  ready: /healthz\n  instances: 2\n", 1)
}

// TestSQSVisibilityCaught: Q-visibility freezes the instance holding a
// received message past the 1 s visibility timeout, SQS delivers it to
// the other instance, and the frozen one then finishes: a consumer that
// dedups per process, or not at all, credits it twice; the correct one
// (the inbox row in the credit's transaction) credits once.
func TestSQSVisibilityCaught(t *testing.T) {
	w := newSQSWorld(t)
	const dc = checker.KindDoubleCredit
	for _, c := range []struct {
		flaw    string
		verdict scenario.Verdict
		kinds   map[string][]string
	}{
		{"none", scenario.Pass, map[string][]string{}},
		{"no-dedup", scenario.Violation, map[string][]string{"Q-visibility": {dc}}},
		{"memory-dedup", scenario.Violation, map[string][]string{"Q-visibility": {dc}}},
	} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, sqsConfig2(c.flaw, w.endpoint, w.database(t, "vis_"+c.flaw)), Options{Only: []string{"Q-visibility"}})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			if got := findingKinds(rep.Results, []string{"Q-visibility"}); fmt.Sprint(got) != fmt.Sprint(c.kinds) {
				t.Errorf("kinds %v, want %v\n%s", got, c.kinds, out)
			}
			for _, r := range rep.Results {
				if r.ID == "Q-visibility" && r.Verdict != c.verdict {
					t.Errorf("Q-visibility: %s %s, want %s", r.Verdict, r.Why, c.verdict)
				}
			}
			assertSQSRunGone(t, w.endpoint, out)
		})
	}
}
