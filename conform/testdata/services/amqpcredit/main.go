// Command amqpcredit is a purpose-built RabbitMQ consumer for idemcheck's
// queue checks, on the official client (amqp091-go): it consumes
// $AMQP_QUEUE at $AMQP_URL with manual acknowledgements, one message at a
// time, credits a merchant for each payment message into Postgres
// (--dsn), acknowledges it a moment after the credit commits, and serves
// GET /credits?payment_id= and /healthz on $PORT. Each --flaw switches one
// guard off; none is correct: it rejects a malformed message without
// requeue, and the queue's dead-letter exchange moves it to $AMQP_DLQ.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

var flaws = map[string]string{
	"none":              "dedups by event id in the ledger's inbox, credits then acks, rejects a malformed message without requeue (dead-lettered)",
	"no-dedup":          "credits every message it is delivered",
	"memory-dedup":      "keeps the event ids it credited in memory only (lost on restart)",
	"ack-before-credit": "acks a message, then credits it a moment later",
	"poison-requeue":    "nacks a malformed message with requeue, forever: it comes straight back and holds the queue",
}

type message struct {
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id"`
	Amount    int64  `json:"amount"`
	Merchant  string `json:"merchant"`
}

type consumer struct {
	flaw   string
	delay  time.Duration
	ledger *ledger
	seen   map[string]bool // memory-dedup
}

func main() {
	flaw := flag.String("flaw", "none", "the guard switched off")
	dsn := flag.String("dsn", "", "the Postgres the credits go to")
	delay := flag.Duration("ack-delay", 300*time.Millisecond, "how long after its credit a message is acknowledged")
	work := flag.Duration("work", 150*time.Millisecond, "how long a credit takes to make before it commits")
	flag.Parse()
	if _, ok := flaws[*flaw]; !ok {
		log.Fatalf("unknown --flaw %q", *flaw)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	led, err := openLedger(ctx, *dsn, *work)
	if err != nil {
		log.Fatalf("ledger: %v", err)
	}
	conn, err := amqp.Dial(os.Getenv("AMQP_URL"))
	if err != nil {
		log.Fatalf("connect: %v", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		log.Fatal(err)
	}
	// One unacknowledged message at a time: a poison requeued goes back
	// to the head of the queue and is this consumer's next delivery again.
	if err := ch.Qos(1, 0, false); err != nil {
		log.Fatal(err)
	}
	queue := os.Getenv("AMQP_QUEUE")
	ds, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		log.Fatalf("consume %s: %v", queue, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/credits", led.serve)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	log.Printf("amqpcredit --flaw %s (%s): consuming %s (dead-letter queue %s)", *flaw, flaws[*flaw], queue, os.Getenv("AMQP_DLQ"))
	c := &consumer{flaw: *flaw, delay: *delay, ledger: led, seen: map[string]bool{}}
	for {
		select {
		case <-ctx.Done():
			// Closing the connection requeues what was not acknowledged.
			_ = conn.Close()
			_ = srv.Close()
			return
		case d, ok := <-ds:
			if !ok {
				log.Fatalf("the broker closed the delivery channel")
			}
			c.handle(ctx, d)
		}
	}
}

// handle credits one delivery and acknowledges it, or rejects a
// malformed one.
func (c *consumer) handle(ctx context.Context, d amqp.Delivery) {
	var m message
	if json.Unmarshal(d.Body, &m) != nil || m.EventID == "" || m.Amount <= 0 {
		if c.flaw == "poison-requeue" {
			// A pause, so the loop does not spin a core.
			time.Sleep(50 * time.Millisecond)
			ack(d.Nack(false, true))
			return
		}
		log.Printf("rejecting malformed message %s (delivery %d): %.40q", d.MessageId, d.DeliveryTag, d.Body)
		ack(d.Reject(false))
		return
	}
	if c.flaw == "ack-before-credit" {
		ack(d.Ack(false))
		time.Sleep(c.delay)
		c.credit(ctx, m, true)
		return
	}
	switch c.flaw {
	case "no-dedup":
		c.credit(ctx, m, false)
	case "memory-dedup":
		if !c.seen[m.EventID] {
			c.seen[m.EventID] = true
			c.credit(ctx, m, false)
		}
	default:
		c.credit(ctx, m, true)
	}
	// The ack trails the credit by --ack-delay: the window a crash
	// redelivers in.
	time.Sleep(c.delay)
	ack(d.Ack(false))
}

func (c *consumer) credit(ctx context.Context, m message, dedup bool) {
	ok, err := c.ledger.credit(ctx, m, dedup)
	switch {
	case err != nil:
		log.Fatalf("credit %s: %v", m.EventID, err)
	case ok:
		log.Printf("credited %s (payment %s, %d)", m.EventID, m.PaymentID, m.Amount)
	default:
		log.Printf("already credited %s (payment %s): skipped", m.EventID, m.PaymentID)
	}
}

func ack(err error) {
	if err != nil {
		log.Fatalf("ack: %v", err)
	}
}
