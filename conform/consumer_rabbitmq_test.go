package conform

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// rabbitWorld is a RabbitMQ (with its management API) and a Postgres
// that a test's runs share; each run has its own queues and database.
type rabbitWorld struct {
	amqp, mgmt, postgres string
}

func newRabbitWorld(t *testing.T) rabbitWorld {
	t.Helper()
	st, err := services.Start(context.Background(), services.Options{RabbitMQ: true, Postgres: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	m, ok := st.RabbitMQ.(interface{ Management() string })
	if !ok {
		t.Skipf("the %s provider's RabbitMQ has no management API", st.Provider)
	}
	return rabbitWorld{amqp: st.RabbitMQ.Endpoint(), mgmt: m.Management(), postgres: st.Postgres.Endpoint()}
}

// database makes a database of the run's own and returns its DSN.
func (w rabbitWorld) database(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, w.postgres)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name = fmt.Sprintf("amqp_%d_%s", os.Getpid(), strings.ReplaceAll(name, "-", "_"))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(w.postgres)
	u.Path = "/" + name
	return u.String()
}

var (
	amqpcreditOnce sync.Once
	amqpcreditBin  string
	amqpcreditErr  error
)

// amqpcredit builds the fixture beside the test services TestMain built.
func amqpcredit(t *testing.T) string {
	t.Helper()
	amqpcreditOnce.Do(func() {
		amqpcreditBin = filepath.Join(filepath.Dir(creditsvcBin), "amqpcredit")
		out, err := exec.Command("go", "build", "-o", amqpcreditBin, "./testdata/services/amqpcredit").CombinedOutput()
		if err != nil {
			amqpcreditErr = fmt.Errorf("build amqpcredit: %v\n%s", err, out)
		}
	})
	if amqpcreditErr != nil {
		t.Fatal(amqpcreditErr)
	}
	return amqpcreditBin
}

// rabbitConfig is a consumer-only config of one amqpcredit instance on the
// world's RabbitMQ, its credits read from its own database.
func rabbitConfig(t *testing.T, w rabbitWorld, flaw string) string {
	return rabbitConfigIn(t, w, flaw, flaw)
}

// rabbitConfigIn is rabbitConfig with credits in a database named db (each
// run of one test process needs its own).
func rabbitConfigIn(t *testing.T, w rabbitWorld, flaw, db string) string {
	dsn := w.database(t, db)
	return fmt.Sprintf(`target:
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  command: [%q, "--flaw", %q, "--dsn", %q]
  ready: /healthz
  start_timeout: 15s
consumer:
  broker: rabbitmq
  brokers: [%q, %q]
  message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}, "merchant": "{{merchant}}"}'
  credits: {dsn: %q, query: "SELECT amount FROM credits WHERE payment_id = $2"}
timeout: 3s
settle: 150ms
converge_within: 15s
quiesce: 100ms
`, amqpcredit(t), flaw, dsn, w.amqp, w.mgmt, dsn)
}

// TestRabbitMQConsumerFlawsCaught: each flaw of a RabbitMQ consumer on the
// official client is caught with exactly its kind by exactly the checks
// that can see it; the correct consumer passes; Q-rebalance is n/a on
// RabbitMQ, saying why; every run deletes its queues and the dead-letter
// exchange. One instance: a poison requeued to a second consumer would let
// the messages behind it pass to the first.
func TestRabbitMQConsumerFlawsCaught(t *testing.T) {
	w := newRabbitWorld(t)
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
		// Acknowledged and then killed before the credit: never delivered
		// again.
		{"ack-before-credit", map[string][]string{"Q-kill": {lost}}},
		// The poison requeued comes straight back: the messages behind it
		// are never delivered.
		{"poison-requeue", map[string][]string{"Q-poison": {lost}}},
	} {
		t.Run(c.flaw, func(t *testing.T) {
			t.Parallel()
			code, rep, out := runText(t, rabbitConfig(t, w, c.flaw), Options{Only: queueIDs})
			if rep == nil {
				t.Fatalf("no report (exit %d): %s", code, out)
			}
			assertQueueVerdicts(t, "rabbitmq", code, rep, out, c.want)
			assertRabbitRunGone(t, w, out)
		})
	}
}

// rabbitRunQueue finds the queues a run printed it made.
var rabbitRunQueue = regexp.MustCompile(`queue (idemcheck-q-\S+) \(classic, durable; rejected messages to dead-letter queue (idemcheck-q-\S+)\)`)

// assertRabbitRunGone: the queues (and the dead-letter exchange) of the
// run that printed out are not on the broker.
func assertRabbitRunGone(t *testing.T, w rabbitWorld, out string) {
	t.Helper()
	m := rabbitRunQueue.FindStringSubmatch(out)
	if m == nil {
		t.Errorf("the run did not say which queues it made:\n%s", out)
		return
	}
	conn, err := amqp.Dial(w.amqp)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, n := range m[1:] {
		// A passive declare of a missing queue closes its channel: one each.
		ch, err := conn.Channel()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ch.QueueDeclarePassive(n, true, false, false, false, nil); err == nil {
			t.Errorf("left on the broker after the run: queue %s", n)
			_ = ch.Close()
		}
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclarePassive(m[2], "fanout", true, false, false, false, nil); err == nil {
		t.Errorf("left on the broker after the run: exchange %s", m[2])
		_ = ch.Close()
	}
}
