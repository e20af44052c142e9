package reference

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/targets/connector"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/streamjob"
	"github.com/idemcheck/idemcheck/targets/webhook"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// full is the rest of the reference stack behind the API: the outbox relay
// and Kafka, the worker crediting merchants and notifying the phone through
// the push provider, the change connector and the stream job's sink; the
// webhook tier gets fakepsp's events. With a standby Region (rg), the
// connector and the stream job run in R2.
type full struct {
	st      *refstack.Stack
	rg      *regions
	svc     *services.Stack
	psp     *fakepsp.PSP
	push    *push.Server
	pushSrv *http.Server
	kc      *kgo.Client
	adm     *kadm.Client
	topics  []string
	job     *refstack.Tier
	// stream is the stack whose database the connector reads and the
	// sink is in.
	stream  *refstack.Stack
	pushURL string
	// tierBrokers is where the tiers bootstrap: the Kafka link in a chaos run.
	tierBrokers string
}

// fullTiers are the tiers a full stack starts besides the API's own.
var fullTiers = []string{relay.TierName, worker.TierName, connector.TierName, streamjob.TierName, push.TierName}

// startFull starts the delivery and stream tiers on st, and the standby
// Region when tp is set. Each tier gets set's switches of its own (the
// relay's and the worker's from the stack's config).
func startFull(ctx context.Context, st *refstack.Stack, svc *services.Stack, psp *fakepsp.PSP, set mutant.Set,
	tp *faults.Toxiproxy, log io.Writer) (*full, error) {
	f := &full{st: st, svc: svc, psp: psp, stream: st}
	if err := worker.Migrate(ctx, st.Ledger.Pool); err != nil {
		return f, fmt.Errorf("worker tables: %w", err)
	}
	if tp != nil {
		rg, err := startRegions(ctx, st, svc, tp, psp.URL(), log)
		f.rg = rg
		if err != nil {
			return f, fmt.Errorf("the standby Region: %w", err)
		}
		rg.delivery, rg.webhook, f.stream = f.startDelivery, f.registerWebhook, rg.r2
	}
	if err := streamjob.Migrate(ctx, f.stream.Ledger.Pool); err != nil {
		return f, fmt.Errorf("stream job tables: %w", err)
	}
	brokers := svc.Kafka.Endpoint()
	f.tierBrokers = brokers
	if svc.KafkaProxied != "" {
		// The tiers bootstrap through the link; idemcheck's own reads stay direct.
		f.tierBrokers = svc.KafkaProxied
	}
	var err error
	if f.kc, err = kgo.NewClient(kgo.SeedBrokers(brokers)); err != nil {
		return f, err
	}
	f.adm = kadm.NewClient(f.kc)
	payments, changes := f.paymentsTopic(), "changes-"+st.Cfg.Name
	if f.rg != nil {
		f.rg.brokers, f.rg.topic = brokers, payments
	}
	for _, t := range []string{payments, changes} {
		resp, err := f.adm.CreateTopic(ctx, 1, 1, nil, t)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			return f, fmt.Errorf("topic %s: %w", t, err)
		}
		f.topics = append(f.topics, t)
	}
	// The push provider runs in this process: its notify ops are the
	// phone's screen, recorded as they are shown.
	f.push = push.NewServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return f, err
	}
	f.pushSrv = &http.Server{Handler: f.push.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = f.pushSrv.Serve(ln) }()
	f.pushURL = "http://" + ln.Addr().String()
	if err := f.startDelivery(ctx, st); err != nil {
		return f, err
	}
	if _, err := f.stream.StartTier(ctx, connector.TierName, "connector", "", []string{"-postgres", f.stream.TierDSN, "-brokers", f.tierBrokers, "-topic", changes,
		"-slot", "idemcheck_run_" + st.Cfg.Name}); err != nil {
		return f, err
	}
	jargs := []string{"-name", "job", "-postgres", f.stream.TierDSN, "-brokers", f.tierBrokers, "-topic", changes, "-version", "2",
		"-checkpoint-every", "1", "-valkey", f.stream.TierValkey()}
	if js := mutant.Of(streamjob.TierName, set); len(js) > 0 {
		jargs = append(jargs, "-mutant", js.String())
	}
	if f.job, err = f.stream.StartTier(ctx, streamjob.TierName, "streamjob", "", jargs); err != nil {
		return f, err
	}
	return f, f.registerWebhook(st)
}

// startDelivery starts a Region's outbox relay and worker. Both Regions'
// share the topic, and the worker's name is its static group member id, so
// R2's worker takes the dead R1 worker's place in the group at once.
func (f *full) startDelivery(ctx context.Context, st *refstack.Stack) error {
	brokers := f.tierBrokers
	payments := f.paymentsTopic()
	if _, err := st.StartTier(ctx, relay.TierName, "relay", "", []string{"-postgres", st.TierDSN, "-brokers", brokers, "-topic", payments,
		"-mutants", mutant.Of(relay.TierName, st.Cfg.Mutants).String()}); err != nil {
		return err
	}
	wargs := []string{"-name", "worker", "-postgres", st.TierDSN, "-brokers", brokers, "-topic", payments, "-group", f.workerGroup(),
		"-push", f.pushURL, "-valkey", st.TierValkey(), "-mutants", mutant.Of(worker.TierName, st.Cfg.Mutants).String()}
	_, err := st.StartTier(ctx, worker.TierName, "worker", "", wargs)
	return err
}

// paymentsTopic is the topic both Regions' relays publish the payment
// events to.
func (f *full) paymentsTopic() string { return "payments-" + f.st.Cfg.Name }

// workerGroup is the consumer group of both Regions' workers.
func (f *full) workerGroup() string { return "workers-" + f.st.Cfg.Name }

// registerWebhook has fakepsp deliver its events to st's webhook tier.
func (f *full) registerWebhook(st *refstack.Stack) error {
	if st.Webhook == nil {
		return nil
	}
	if _, err := f.psp.RegisterWebhook(st.Webhook.URL+webhook.Path, "payment_intent.succeeded"); err != nil {
		return fmt.Errorf("register the webhook tier with fakepsp: %w", err)
	}
	return nil
}

// ledger is the stack whose ledger is the truth: R2's once it took over.
func (f *full) ledger() *refstack.Stack {
	if f.rg != nil {
		return f.rg.active.Load()
	}
	return f.st
}

// stop ends what startFull started outside the stack (its tiers stop with it).
func (f *full) stop() {
	if f.pushSrv != nil {
		_ = f.pushSrv.Close()
	}
	if f.adm != nil && len(f.topics) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _ = f.adm.DeleteTopics(ctx, f.topics...)
		cancel()
	}
	if f.kc != nil {
		f.kc.Close()
	}
	if f.rg != nil {
		f.rg.stop()
	}
}

// history is what happened behind the API: every credit the worker made and
// every notification the phone showed.
func (f *full) history(ctx context.Context) (history.History, error) {
	rows, err := f.ledger().Ledger.Pool.Query(ctx, `SELECT event_id, payment_id, merchant, amount, worker, call_ns, return_ns FROM credits ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read credits: %w", err)
	}
	defer rows.Close()
	var h history.History
	for rows.Next() {
		var op history.Op
		var amount, ret int64
		if err := rows.Scan(&op.Input.EventID, &op.PaymentID, &op.Input.Merchant, &amount, &op.Process, &op.Call, &ret); err != nil {
			return nil, err
		}
		op.Op, op.Input.Amount, op.Return = history.OpCredit, &amount, &ret
		h = append(h, op)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return append(h, f.push.History()...), nil
}

// sinkHistory is the stream job's side: one credit per succeeded payment as
// the ledger has it, and a read of every sink row, for the checker's sink
// rule (the sink equal to the ledger).
func (f *full) sinkHistory(ctx context.Context) (history.History, error) {
	var h history.History
	rows, err := f.stream.Ledger.Pool.Query(ctx, `SELECT payment_id, merchant, amount, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
 (extract(epoch FROM updated_at) * 1e9)::bigint FROM payments WHERE state = 'SUCCEEDED'`)
	if err != nil {
		return nil, fmt.Errorf("read payments: %w", err)
	}
	for rows.Next() {
		var id, m, day string
		var amount, at int64
		if err := rows.Scan(&id, &m, &amount, &day, &at); err != nil {
			rows.Close()
			return nil, err
		}
		ret := at
		h = append(h, history.Op{Process: "ledger-" + id, Op: history.OpCredit, Call: at, Return: &ret, PaymentID: id,
			Input: history.Input{Merchant: m, Amount: history.Int64(amount), EventID: id + ":SUCCEEDED", Day: day}})
	}
	rows.Close()
	st, err := streamjob.ReadStatus(f.job.Admin)
	if err != nil {
		return nil, fmt.Errorf("stream job status: %w", err)
	}
	meta := map[string]string{"restored_from": fmt.Sprint(st.RestoredFrom), "version": fmt.Sprint(st.Version)}
	rows, err = f.stream.Ledger.Pool.Query(ctx, `SELECT merchant, day, total, tag FROM stream_sink ORDER BY merchant, day`)
	if err != nil {
		return nil, fmt.Errorf("read the sink: %w", err)
	}
	defer rows.Close()
	at := history.Now()
	for rows.Next() {
		var m, day string
		var total, tag int64
		if err := rows.Scan(&m, &day, &total, &tag); err != nil {
			return nil, err
		}
		at++
		ret := at
		h = append(h, history.Op{Process: "sink-reader", Op: history.OpSink, Call: at, Return: &ret,
			Input: history.Input{Merchant: m, Day: day, Metadata: meta}, Output: &history.Output{Total: history.Int64(total), Tag: history.Int64(tag)}})
	}
	return h, rows.Err()
}

// drained waits until the delivery side is quiet: the outbox empty, the
// stream job past the end the changes topic had when the wait began, and the
// credit, notification and sink counts unchanged for two seconds; it says
// what is still moving otherwise.
func (f *full) drained(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	ends, err := f.adm.ListEndOffsets(ctx, f.topics[1])
	if err != nil {
		return fmt.Errorf("changes topic end: %w", err)
	}
	var end int64
	ends.Each(func(o kadm.ListedOffset) { end = o.Offset })
	var last string
	stable := 0
	for {
		state, busy, err := f.progress(ctx, end)
		if err == nil && !busy && state == last {
			stable++
			if stable >= 10 {
				return nil
			}
		} else {
			stable = 0
		}
		last = state
		if time.Now().After(deadline) {
			return fmt.Errorf("still moving after %s: %s (%v)", within, state, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (f *full) progress(ctx context.Context, end int64) (string, bool, error) {
	var outbox, credits, sinkRows, sinkTotal int64
	if err := f.ledger().Ledger.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox), (SELECT count(*) FROM credits)`).Scan(&outbox, &credits); err != nil {
		return "", true, err
	}
	if err := f.stream.Ledger.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM stream_sink), (SELECT coalesce(sum(total), 0) FROM stream_sink)`).Scan(&sinkRows, &sinkTotal); err != nil {
		return "", true, err
	}
	st, err := streamjob.ReadStatus(f.job.Admin)
	if err != nil {
		return "", true, err
	}
	state := fmt.Sprintf("outbox %d, credits %d, notifications %d, sink %d rows totalling %d", outbox, credits, len(f.push.History()), sinkRows, sinkTotal)
	busy := outbox > 0 || st.NextOffset < end
	if busy {
		state += fmt.Sprintf(", stream job at offset %d of %d", st.NextOffset, end)
	}
	if f.rg != nil && !f.rg.tookOver() {
		// The sink reads R2: it is right only once R2 holds R1's ledger.
		ok, repl, err := f.rg.caughtUp(ctx)
		if err != nil {
			return "", true, err
		}
		busy = busy || !ok
		state += ", replication: " + repl
	}
	return state, busy, nil
}

// behind is scenario.Env.Behind for the full stack: drain, then read.
func (f *full) behind(ctx context.Context) (effects, sink history.History, err error) {
	if err := f.drained(ctx, 90*time.Second); err != nil {
		return nil, nil, err
	}
	if effects, err = f.history(ctx); err != nil {
		return nil, nil, err
	}
	sink, err = f.sinkHistory(ctx)
	return effects, sink, err
}

// severalMerchants spreads a full run's traffic over three merchants: a third
// caller, and each caller paying its own merchant (shop-u1, shop-u2,
// shop-u3), so credits, balances and sink rows are judged per merchant.
func severalMerchants(cfg *config.Config) {
	cfg.Callers = append(cfg.Callers, config.Caller{Name: "u3", Headers: map[string]string{"Authorization": "Bearer u3"}})
	cfg.Create.Body = strings.Replace(cfg.Create.Body, `{"order_id"`, `{"merchant": "shop-{{caller}}", "order_id"`, 1)
}
