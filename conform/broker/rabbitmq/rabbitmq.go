// Package rabbitmq is the RabbitMQ broker of the queue checks: the run's
// own durable queue, with a dead-letter exchange and queue behind it, on
// the config's broker or on a RabbitMQ started for the run. Records are
// published with publisher confirms; the evidence of what the consumers
// acknowledged is the broker's: live counts from passive declares and the
// queue's acknowledgement counter from the management API.
package rabbitmq

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// Caps: a dead-letter queue (the queue's dead-letter exchange). RabbitMQ
// has no partitions a producer picks, no group that rebalances, no dedup
// window and no visibility timeout (an unacknowledged message returns
// when its consumer's channel closes, not on a timer). Members is not
// claimed: AMQP tells only how many consumers a queue has, and the
// management API's list of them lags by its statistics interval.
// Requeue: the consumers share the queue, and a channel that closes with
// messages unacknowledged hands them to the others, marked redelivered;
// the management API counts each redelivery.
const Caps = broker.DeadLetter | broker.Requeue

func init() { broker.Register("rabbitmq", Caps, Open, Validate) }

// RabbitMQ is the run's queue, its dead-letter exchange and queue on one
// broker.
type RabbitMQ struct {
	amqpURL string
	mgmt    *mgmt
	queue   string
	dlq     string
	conn    *amqp.Connection
	log     io.Writer
	undo    []func()

	mu       sync.Mutex // one publisher channel, and the count it confirmed
	pub      *amqp.Channel
	produced int64
}

// Open declares the run's dead-letter exchange and queue and its queue
// (and starts a RabbitMQ when the config names none), after sweeping what
// a SIGKILLed run of the same config left on the user's broker.
func Open(ctx context.Context, s broker.Setup) (broker.Broker, error) {
	r := &RabbitMQ{log: s.Log}
	if err := r.open(ctx, s); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *RabbitMQ) open(ctx context.Context, s broker.Setup) error {
	mgmtURL := ""
	if len(s.Addrs) > 0 {
		r.amqpURL = s.Addrs[0]
		if len(s.Addrs) > 1 {
			mgmtURL = s.Addrs[1]
		} else {
			mgmtURL = defaultManagement(r.amqpURL)
		}
	} else {
		st, err := services.Start(ctx, services.Options{RabbitMQ: true, Log: s.Log})
		if err != nil {
			return fmt.Errorf("start a RabbitMQ for the run (or set consumer.brokers): %v", err)
		}
		r.undo = append(r.undo, func() { _ = st.Stop(context.Background()) })
		r.amqpURL = st.RabbitMQ.Endpoint()
		// A RabbitMQ of another provider than the local one is asked at
		// the management API's usual place beside its AMQP URL.
		mgmtURL = defaultManagement(r.amqpURL)
		if m, ok := st.RabbitMQ.(interface{ Management() string }); ok {
			mgmtURL = m.Management()
		}
	}
	vhost, err := vhostOf(r.amqpURL)
	if err != nil {
		return err
	}
	if r.mgmt, err = newMgmt(mgmtURL, vhost); err != nil {
		return err
	}
	if err := r.mgmt.await(ctx, 30*time.Second); err != nil {
		return fmt.Errorf("the management API at %s (consumer.brokers[1]): %v; idemcheck reads the queue's acknowledgements there", r.mgmt.redacted(), err)
	}
	if r.conn, err = amqp.DialConfig(r.amqpURL, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)}); err != nil {
		return fmt.Errorf("connect to %s: %v", redact(r.amqpURL), err)
	}
	r.undo = append(r.undo, func() { _ = r.conn.Close() })
	if len(s.Addrs) > 0 {
		r.sweepStale(ctx, []string{s.QueueName, s.Kind.DeadLetter}, time.Now())
	}
	r.queue = strings.ReplaceAll(s.QueueName, "{{run}}", s.Run)
	r.dlq = strings.ReplaceAll(s.Kind.DeadLetter, "{{run}}", s.Run)
	r.undo = append(r.undo, func() { r.drop(r.queue, r.dlq) })
	if err := r.declare(); err != nil {
		return err
	}
	if r.pub, err = r.conn.Channel(); err != nil {
		return err
	}
	if err := r.pub.Confirm(false); err != nil {
		return fmt.Errorf("publisher confirms on %s: %v", redact(r.amqpURL), err)
	}
	return nil
}

// declare makes the dead-letter exchange (named as the dead-letter queue,
// a fanout), the dead-letter queue bound to it, and the run's queue: a
// durable classic queue whose rejected messages go to that exchange. A
// classic queue has no delivery limit, which is the point: a consumer
// that requeues a poison forever must show as such, not be rescued by a
// limit of idemcheck's making (a quorum queue's x-delivery-limit would
// dead-letter the poison itself, and Q-poison would pass a consumer that
// never moves it aside).
func (r *RabbitMQ) declare() error {
	ch, err := r.conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := ch.ExchangeDeclare(r.dlq, amqp.ExchangeFanout, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare the dead-letter exchange %s: %v", r.dlq, err)
	}
	if _, err := ch.QueueDeclare(r.dlq, true, false, false, false, amqp.Table{"x-queue-type": "classic"}); err != nil {
		return fmt.Errorf("declare the dead-letter queue %s: %v", r.dlq, err)
	}
	if err := ch.QueueBind(r.dlq, "", r.dlq, false, nil); err != nil {
		return fmt.Errorf("bind %s to its exchange: %v", r.dlq, err)
	}
	if _, err := ch.QueueDeclare(r.queue, true, false, false, false, queueArgs(r.dlq)); err != nil {
		return fmt.Errorf("declare queue %s: %v", r.queue, err)
	}
	return nil
}

// queueArgs are the run's queue's arguments; a consumer that declares the
// queue itself must pass the same (RabbitMQ refuses a declare that differs).
func queueArgs(dlx string) amqp.Table {
	return amqp.Table{"x-queue-type": "classic", "x-dead-letter-exchange": dlx}
}

// drop deletes the queue, the dead-letter queue and its exchange, on a
// channel of its own (a channel closes on any error).
func (r *RabbitMQ) drop(queue, dlq string) {
	for _, f := range []struct {
		what string
		del  func(*amqp.Channel) error
	}{
		{"queue " + queue, func(ch *amqp.Channel) error { _, err := ch.QueueDelete(queue, false, false, false); return err }},
		{"queue " + dlq, func(ch *amqp.Channel) error { _, err := ch.QueueDelete(dlq, false, false, false); return err }},
		{"exchange " + dlq, func(ch *amqp.Channel) error { return ch.ExchangeDelete(dlq, false, false) }},
	} {
		ch, err := r.conn.Channel()
		if err == nil {
			err = f.del(ch)
			_ = ch.Close()
		}
		if err != nil {
			fmt.Fprintf(r.log, "idemcheck run: delete %s: %v\n", f.what, err)
		}
	}
}

func (r *RabbitMQ) Caps() broker.Caps { return Caps }

// Where gives a consumer the AMQP URL, the queue and the dead-letter queue.
func (r *RabbitMQ) Where() broker.Endpoint {
	return broker.Endpoint{Addrs: []string{r.amqpURL}, Queue: r.queue, DeadLetter: r.dlq}
}

func (r *RabbitMQ) Describe() string {
	return fmt.Sprintf("RabbitMQ %s, queue %s (classic, durable; rejected messages to dead-letter queue %s), management API %s",
		redact(r.amqpURL), r.queue, r.dlq, r.mgmt.redacted())
}

// Place is the publish's sequence number on idemcheck's confirmed channel
// and the message id it carried: the id a consumer sees, the number the
// broker confirmed.
func (r *RabbitMQ) Place(p broker.Pos) broker.Place {
	return broker.Place{Long: fmt.Sprintf("publish %d (message id %s)", p.Offset, p.ID), Short: fmt.Sprintf("#%d", p.Offset)}
}

// Words: a message is acknowledged by the consumer's basic.ack, which the
// broker shows as its counts: the evidence is every message published
// acknowledged or dead-lettered.
func (r *RabbitMQ) Words() broker.Words {
	return broker.Words{Ack: "ack", AckOf: "the ack of", Who: "the consumers", Named: "the consumers of queue " + r.queue,
		Past: "acknowledged", Done: "acknowledged", Evidence: "RabbitMQ counted", Acks: "acks",
		Hint: "ack each message by hand once it is credited (basic.consume with manual acknowledgements)", Store: "queue " + r.queue, Lane: "the queue"}
}

// MessageID is a record's AMQP message id: the same for a producer's
// retry of one record (the same key and body), as a real publisher's retry
// after a lost confirm carries its first copy's id.
func MessageID(key, value []byte) string {
	h := sha256.New()
	h.Write(key)
	h.Write([]byte{0})
	h.Write(value)
	return "idem-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Produce publishes each record persistent to the run's queue and waits
// for the broker's confirm of each: a record is produced when its confirm
// arrives, and a nack is an error.
func (r *RabbitMQ) Produce(ctx context.Context, recs []*broker.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	confs := make([]*amqp.DeferredConfirmation, len(recs))
	for i, rec := range recs {
		c, err := r.pub.PublishWithDeferredConfirmWithContext(ctx, "", r.queue, false, false, amqp.Publishing{
			MessageId: MessageID(rec.Key, rec.Value), Body: rec.Value, DeliveryMode: amqp.Persistent,
			ContentType: "application/json", Headers: amqp.Table{"key": string(rec.Key)}})
		if err != nil {
			return &broker.ProduceError{I: i, Err: err}
		}
		confs[i] = c
	}
	for i, c := range confs {
		ok, err := c.WaitContext(ctx)
		if err == nil && !ok {
			err = fmt.Errorf("the broker nacked publish %d", c.DeliveryTag)
		}
		if err != nil {
			return &broker.ProduceError{I: i, Err: err}
		}
		r.produced++
		recs[i].At = broker.Pos{Offset: int64(c.DeliveryTag), ID: MessageID(recs[i].Key, recs[i].Value)}
	}
	return nil
}

// Group: RabbitMQ has no consumer group; the consumers are counted by Acked.
func (r *RabbitMQ) Group(context.Context) (broker.Group, error) { return broker.Group{}, nil }

// Close deletes the queue, the dead-letter queue and exchange, closes the
// connection and stops the RabbitMQ it started, in that order.
func (r *RabbitMQ) Close() {
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i]()
	}
	r.undo = nil
}

// vhostOf is the AMQP URL's virtual host ("/" when its path is empty).
func vhostOf(u string) (string, error) {
	uri, err := amqp.ParseURI(u)
	if err != nil {
		return "", fmt.Errorf("consumer.brokers[0] %q: %v", redact(u), err)
	}
	return uri.Vhost, nil
}

// defaultManagement is the management API beside an AMQP URL: the same
// host and credentials, port 15672 (15671 over TLS).
func defaultManagement(amqpURL string) string {
	uri, err := amqp.ParseURI(amqpURL)
	if err != nil {
		return ""
	}
	scheme, port := "http", 15672
	if uri.Scheme == "amqps" {
		scheme, port = "https", 15671
	}
	u := url.URL{Scheme: scheme, Host: fmt.Sprintf("%s:%d", uri.Host, port), User: url.UserPassword(uri.Username, uri.Password)}
	return u.String()
}

// redact hides a URL's password, for the log.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}
