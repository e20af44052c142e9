// Command sqscredit is a purpose-built SQS consumer for idemcheck's queue
// checks, on the official aws-sdk-go-v2 client: it receives payment
// messages from $SQS_QUEUE_URL (on $SQS_ENDPOINT) and credits a merchant
// for each into Postgres (--dsn), deduplicating by event id in an inbox
// table in the credit's own transaction, and deletes the message a moment
// after the credit commits (--delete-delay). It answers GET /healthz on
// $PORT. Each --flaw switches one guard off; none is correct. A credit
// takes --work to make before it commits: the window a kill lands in.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var flaws = map[string]string{
	"none":                 "dedups by event id in an inbox table in the credit's transaction, deletes the message after the commit, leaves a malformed message for the dead-letter queue",
	"no-dedup":             "credits every message it receives",
	"memory-dedup":         "keeps the event ids it credited in memory only (lost on restart)",
	"delete-before-credit": "deletes each message, then credits it a moment later",
	"poison-stops":         "stops receiving at a malformed message, silently",
	"body-hash-dedup":      "dedups by a hash of the whole body in the inbox, not by the event id (a retry stamped anew is a new body)",
}

type message struct {
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id"`
	Amount    int64  `json:"amount"`
	Merchant  string `json:"merchant"`
}

type consumer struct {
	flaw   string
	queue  string
	delay  time.Duration
	cl     *sqs.Client
	ledger *ledger
	seen   map[string]bool // memory-dedup
}

func main() {
	flaw := flag.String("flaw", "none", "the guard switched off")
	dsn := flag.String("dsn", "", "the Postgres the credits go to")
	delay := flag.Duration("delete-delay", 300*time.Millisecond, "how long after its credit commits a message is deleted")
	work := flag.Duration("work", 150*time.Millisecond, "how long a credit takes to make before it commits")
	flag.Parse()
	if _, ok := flaws[*flaw]; !ok {
		log.Fatalf("unknown --flaw %q", *flaw)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	led, err := openLedger(ctx, *dsn, *work)
	if err != nil {
		log.Fatal(err)
	}
	defer led.close()
	c := &consumer{flaw: *flaw, queue: os.Getenv("SQS_QUEUE_URL"), delay: *delay, ledger: led, seen: map[string]bool{},
		cl: sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(os.Getenv("SQS_ENDPOINT")),
			Credentials: credentials.NewStaticCredentialsProvider("sqscredit", "sqscredit", "")})}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	log.Printf("sqscredit --flaw %s (%s): receiving from %s (dead-letter queue %s)", *flaw, flaws[*flaw], c.queue, os.Getenv("SQS_DLQ_URL"))
	c.run(ctx)
	<-ctx.Done() // poison-stops: the service stays up, no longer receiving
	_ = srv.Close()
}

// run receives until ctx ends, or until a poison stops it (poison-stops).
func (c *consumer) run(ctx context.Context) {
	for ctx.Err() == nil {
		out, err := c.cl.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(c.queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			if ctx.Err() == nil {
				log.Printf("receive: %v", err)
				time.Sleep(200 * time.Millisecond)
			}
			continue
		}
		for _, m := range out.Messages {
			if !c.handle(ctx, m) {
				log.Printf("stopped at a malformed message %s: receiving no more", aws.ToString(m.MessageId))
				return
			}
		}
	}
}

// handle credits one message and deletes it; false: stop receiving.
func (c *consumer) handle(ctx context.Context, sm types.Message) bool {
	var m message
	if json.Unmarshal([]byte(aws.ToString(sm.Body)), &m) != nil || m.EventID == "" || m.Amount <= 0 {
		if c.flaw == "poison-stops" {
			return false
		}
		// Not deleted: after max_receives the redrive policy moves it to
		// the dead-letter queue, where a person looks at it.
		log.Printf("leaving malformed message %s for the dead-letter queue: %.40q", aws.ToString(sm.MessageId), aws.ToString(sm.Body))
		return true
	}
	switch c.flaw {
	case "delete-before-credit":
		c.delete(sm)
		time.Sleep(c.delay)
		c.credit(ctx, m, m.EventID)
		return true
	case "no-dedup":
		c.credit(ctx, m, "")
	case "memory-dedup":
		if !c.seen[m.EventID] {
			c.seen[m.EventID] = true
			c.credit(ctx, m, "")
		}
	case "body-hash-dedup":
		h := sha256.Sum256([]byte(aws.ToString(sm.Body)))
		c.credit(ctx, m, "body:"+hex.EncodeToString(h[:]))
	default:
		c.credit(ctx, m, m.EventID)
	}
	// The delete trails the credit by --delete-delay: the window a crash
	// redelivers in, after the visibility timeout.
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
	}
	c.delete(sm)
	return true
}

// credit credits m once per inbox key ("": no inbox, every time).
func (c *consumer) credit(ctx context.Context, m message, key string) {
	if err := c.ledger.credit(ctx, m, key); err != nil {
		log.Printf("credit %s: %v", m.EventID, err)
	}
}

// delete has a context of its own: a shutdown deletes what it credited.
func (c *consumer) delete(sm types.Message) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.cl.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(c.queue), ReceiptHandle: sm.ReceiptHandle}); err != nil {
		log.Printf("delete %s: %v", aws.ToString(sm.MessageId), err)
	}
}
