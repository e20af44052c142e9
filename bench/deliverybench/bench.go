// Package deliverybench measures the reference stack's delivery path (outbox
// row -> relay -> Kafka -> worker -> credit and notification intent -> push)
// next to raw Kafka produce+consume on the same broker, in one run. The
// calling binary must dispatch tiers (tier.Dispatch first thing in main or
// TestMain): the relay, the worker and the push provider run as its children.
package deliverybench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// Config says what to measure against.
type Config struct {
	// PostgresDSN is a superuser DSN of the cluster: Run creates a database
	// of its own in it and drops it afterwards.
	PostgresDSN string
	// Brokers is the Kafka bootstrap list.
	Brokers []string
	// Events is how many events ride the path, and how many records the
	// raw reference produces and consumes (default 20000).
	Events int
	// Dir gets a directory Name holding the tiers' logs and address files,
	// kept; default a new temp dir, removed when Run returns.
	Dir string
	// Name labels the database, topics and group: lower-case letters,
	// digits and underscores, not starting with a digit; default random.
	Name string
	// Rounds is how many times the path and then the raw reference run
	// Events each (default 3); the figures are each side's median round,
	// so one scheduling hiccup on a loaded machine does not decide them.
	Rounds int
	// WarmRounds is how many unmeasured rounds of Events go through the
	// path before the first measured one (default 2, -1 for none); see
	// Run.
	WarmRounds int
	// Around, when set, is called with the tiers' pids by name right before
	// the first measured round; the function it returns is called right
	// after the last one (the bench reads each process's CPU time around
	// the rounds).
	Around func(tiers map[string]int) (done func())
	// AroundRaw, when set, is called right before each raw round; the
	// function it returns right after it (the bench reads the broker's
	// own CPU per raw record round by round).
	AroundRaw func(round int) (done func())
}

// Result is one run's measurement.
type Result struct {
	Events int
	// Delivery runs from the commit of a round's first outbox row to its
	// last notification marked SENT (every event credited and pushed): the
	// median round.
	Delivery time.Duration
	// Raw is producing Events records and consuming them back: the median
	// round.
	Raw time.Duration
	// DeliveryRounds and RawRounds are every round, in the order run.
	DeliveryRounds, RawRounds []time.Duration
	DeliveryPerSec, RawPerSec float64
	// Ratio is DeliveryPerSec / RawPerSec.
	Ratio float64
}

func (r Result) String() string {
	return fmt.Sprintf("delivery %d events in %v (median of %s): %.0f events/s; raw Kafka produce+consume %.0f/s (median of %s); ratio %.3f",
		r.Events, r.Delivery.Round(time.Millisecond), Rounds(r.DeliveryRounds), r.DeliveryPerSec, r.RawPerSec, Rounds(r.RawRounds), r.Ratio)
}

// validName is a Postgres identifier that needs no quoting and a valid Kafka
// topic name prefix.
var validName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,40}$`)

const (
	merchant = "m1"
	amount   = int64(100)
)

// Run measures the delivery path with every guard on (inbox, notification
// record and replace id, manual offset commits after the transaction,
// read_committed), then raw Kafka on the same broker. The broker has been
// warmed, the tiers are up, and warmEvents and then WarmRounds rounds of
// Events have gone through the whole path before the clock starts, so the
// figure is the path's throughput, not process start-up or the broker's JIT.
// The path runs Rounds rounds of Events, then the raw reference as many. The outcome
// is checked exactly: one credit and one notification per event.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if cfg.PostgresDSN == "" || len(cfg.Brokers) == 0 {
		return res, errors.New("deliverybench: a Postgres DSN and Kafka brokers are required")
	}
	if cfg.Events <= 0 {
		cfg.Events = 20000
	}
	if cfg.Rounds <= 0 {
		cfg.Rounds = 3
	}
	switch {
	case cfg.WarmRounds == 0:
		cfg.WarmRounds = 2
	case cfg.WarmRounds < 0:
		cfg.WarmRounds = 0
	}
	if cfg.Name == "" {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		cfg.Name = "dbench_" + hex.EncodeToString(b)
	}
	if !validName.MatchString(cfg.Name) {
		return res, fmt.Errorf("deliverybench: name %q: want lower-case letters, digits and underscores, not starting with a digit (it names a database and topics)", cfg.Name)
	}
	if cfg.Dir == "" {
		if cfg.Dir, err = os.MkdirTemp("", "idemcheck-deliverybench-"); err != nil {
			return res, err
		}
		defer os.RemoveAll(cfg.Dir)
	} else {
		// A run of its own in a given directory: a reused one must not
		// hand this run another run's address files.
		cfg.Dir = filepath.Join(cfg.Dir, cfg.Name)
		if err = os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return res, err
		}
	}
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer e.close()
	res.Events = cfg.Events
	// The broker warms on a scratch topic first (its first produce and fetch
	// run several times slower than the next), so neither the path nor the
	// raw reference measured after it pays for a cold broker.
	if _, err = rawKafka(ctx, e.adm, cfg.Brokers, cfg.Name+"-warm", min(cfg.Events, 5000)); err != nil {
		return res, fmt.Errorf("deliverybench: broker warm-up: %w", err)
	}
	if err = e.warm(ctx); err != nil {
		return res, fmt.Errorf("%w%s", err, e.logTails())
	}
	// The broker's JIT is still compiling the path's requests (consumer
	// group fetches, offset commits, idempotent produce) after the
	// warm-up events: in the first rounds its compiler threads took half
	// of Kafka's CPU. Unmeasured rounds let it finish, as it has in a
	// broker in service; the raw reference, run last, meets the same warm
	// broker.
	base := warmEvents
	for range cfg.WarmRounds {
		if _, err = e.round(ctx, base, cfg.Events); err != nil {
			return res, fmt.Errorf("deliverybench: warm-up round: %w%s", err, e.logTails())
		}
		base += cfg.Events
	}
	done := func() {}
	if cfg.Around != nil {
		done = cfg.Around(e.pids())
	}
	for r := range cfg.Rounds {
		d, err := e.round(ctx, base+r*cfg.Events, cfg.Events)
		if err != nil {
			return res, fmt.Errorf("%w%s", err, e.logTails())
		}
		res.DeliveryRounds = append(res.DeliveryRounds, d)
	}
	done()
	if err = e.verify(ctx, base+cfg.Rounds*cfg.Events); err != nil {
		return res, err
	}
	e.stopTiers() // the raw reference gets the machine the path had
	for r := range cfg.Rounds {
		doneRaw := func() {}
		if cfg.AroundRaw != nil {
			doneRaw = cfg.AroundRaw(r)
		}
		d, err := rawKafka(ctx, e.adm, cfg.Brokers, fmt.Sprintf("%s-raw%d", cfg.Name, r), cfg.Events)
		doneRaw()
		if err != nil {
			return res, err
		}
		res.RawRounds = append(res.RawRounds, d)
	}
	res.Delivery, res.Raw = median(res.DeliveryRounds), median(res.RawRounds)
	res.DeliveryPerSec = float64(cfg.Events) / res.Delivery.Seconds()
	res.RawPerSec = float64(cfg.Events) / res.Raw.Seconds()
	res.Ratio = res.DeliveryPerSec / res.RawPerSec
	return res, nil
}

// warmEvents go through the whole path before the clock starts: the first
// batches pay for connections, prepared statements and the broker's first
// fetches, which a path in service has long paid.
const warmEvents = 64

// warm sends the warm-up events through the path.
func (e *env) warm(ctx context.Context) error {
	if err := e.copyRows(ctx, "payments", paymentCols, 0, warmEvents, payment); err != nil {
		return err
	}
	if err := e.copyRows(ctx, "outbox", outboxCols, 0, warmEvents, outboxRow); err != nil {
		return err
	}
	if err := e.waitSent(ctx, warmEvents, warmEvents-1, time.Minute); err != nil {
		return fmt.Errorf("deliverybench: warm-up: %w", err)
	}
	return nil
}

// round sends events [from, from+n) and returns the time from their outbox
// rows' commit to the last SENT. Their payments exist before the clock
// starts.
func (e *env) round(ctx context.Context, from, n int) (time.Duration, error) {
	if err := e.copyRows(ctx, "payments", paymentCols, from, from+n, payment); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := e.copyRows(ctx, "outbox", outboxCols, from, from+n, outboxRow); err != nil {
		return 0, err
	}
	if err := e.waitSent(ctx, from+n, from+n-1, 2*time.Minute+time.Duration(n)*5*time.Millisecond); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

var (
	paymentCols = []string{"payment_id", "caller_id", "client_key", "amount", "currency", "merchant", "state"}
	outboxCols  = []string{"event_id", "payment_id", "merchant", "amount", "currency"}
)

func payment(i int) []any {
	return []any{paymentID(i), "u1", fmt.Sprintf("K%d", i), amount, "USD", merchant, ledger.Succeeded}
}

func outboxRow(i int) []any {
	return []any{ledger.EventID(paymentID(i)), paymentID(i), merchant, amount, "USD"}
}

// Rounds prints ds in milliseconds: "412, 398, 430 ms".
func Rounds(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatInt(d.Milliseconds(), 10)
	}
	return strings.Join(parts, ", ") + " ms"
}

// median of ds (the lower middle of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func paymentID(i int) string { return fmt.Sprintf("pay_b%d", i) }

// copyRows COPYs rows [from, to) of table, built by row.
func (e *env) copyRows(ctx context.Context, table string, cols []string, from, to int, row func(int) []any) error {
	rows := make([][]any, 0, to-from)
	for i := from; i < to; i++ {
		rows = append(rows, row(i))
	}
	if _, err := e.pool.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("deliverybench: copy %s: %w", table, err)
	}
	return nil
}

// waitSent polls until want notifications are SENT, event last (the
// highest index of the wait) among them. The poll is the measurement's
// resolution, not a wait for a race. It watches last's own row, one index
// lookup: a count of every SENT row at each poll would cost Postgres as much CPU
// as a tenth of the path it measures, and more each round as the table grows.
// The count runs once last is SENT, and the wait goes on until it holds, so
// the figure never depends on the order in which the worker marks rows.
func (e *env) waitSent(ctx context.Context, want, last int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	id := ledger.EventID(paymentID(last))
	for {
		var state string
		err := e.pool.QueryRow(ctx, `SELECT state FROM notif WHERE event_id = $1 AND channel = $2`, id, worker.ChannelPush).Scan(&state)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var sent int
		if state == worker.StateSent {
			if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM notif WHERE state = $1`, worker.StateSent).Scan(&sent); err != nil {
				return err
			}
			if sent >= want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if state != worker.StateSent {
				return fmt.Errorf("deliverybench: the notification of event %d is %q, not SENT, after %v (logs in %s)", last, state, limit, e.dir)
			}
			return fmt.Errorf("deliverybench: %d of %d notifications sent after %v (logs in %s)", sent, want, limit, e.dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// verify checks the exact outcome: every event credited once, the balance is
// their sum, the outbox is empty, and the buyer's phone shows one
// notification per event, each alerted once.
func (e *env) verify(ctx context.Context, n int) error {
	var credits, distinct, outbox int
	var balance int64
	err := e.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM credits), (SELECT count(DISTINCT event_id) FROM credits),
		(SELECT count(*) FROM outbox), (SELECT balance FROM merchant_balances WHERE merchant = $1)`, merchant).Scan(&credits, &distinct, &outbox, &balance)
	if err != nil {
		return fmt.Errorf("deliverybench: verify: %w", err)
	}
	if credits != n || distinct != n || outbox != 0 || balance != int64(n)*amount {
		return fmt.Errorf("deliverybench: verify: %d credits of %d events for %d events, %d outbox rows left, balance %d (want %d)",
			credits, distinct, n, outbox, balance, int64(n)*amount)
	}
	s, err := push.NewClient(e.pushURL).Screen(ctx, "u1")
	if err != nil {
		return fmt.Errorf("deliverybench: verify: %w", err)
	}
	if len(s.Shown) != n || s.Alerts != n {
		return fmt.Errorf("deliverybench: verify: phone shows %d notifications with %d alerts for %d events", len(s.Shown), s.Alerts, n)
	}
	return nil
}

// open connects a pool to dsn.
func open(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("deliverybench: postgres: %w", err)
	}
	return pool, nil
}
