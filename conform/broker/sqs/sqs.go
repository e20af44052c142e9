// Package sqs is the SQS broker of the queue checks: the run's own queue
// (standard or FIFO) with a dead-letter queue behind a redrive policy, on
// the config's endpoint (AWS or any SQS-compatible server) or on a local
// ElasticMQ started for the run. Its evidence is the queues' own counts,
// read without receiving: a receive would raise the receive count the
// redrive policy counts, and so move a message the consumer never failed.
package sqs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/stack/services"
)

// Caps: a visibility timeout and a dead-letter queue; a FIFO queue also a
// deduplication window (the instance's Caps). SQS has no partitions a
// producer picks, no group and no list of its consumers.
const Caps = broker.Visibility | broker.DeadLetter | broker.DedupWindow

// Window is SQS FIFO's deduplication interval, fixed by AWS and by
// ElasticMQ alike: the run's clock knob cannot shorten it.
const Window = 5 * time.Minute

func init() { broker.Register("sqs", Caps, Open, Validate) }

// SQS is the run's queue and dead-letter queue on one endpoint.
type SQS struct {
	cl       *sqs.Client
	endpoint string
	kind     broker.QueueKind
	// names and URLs of the queue and its dead-letter queue.
	name, dlName string
	url, dlURL   string
	log          io.Writer
	undo         []func()

	mu       sync.Mutex
	produced int64
}

// Open makes the run's dead-letter queue and its queue with a redrive
// policy to it (and starts an ElasticMQ when the config names no endpoint).
func Open(ctx context.Context, s broker.Setup) (broker.Broker, error) {
	q := &SQS{kind: s.Kind, log: s.Log}
	if err := q.open(ctx, s); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

func (q *SQS) open(ctx context.Context, s broker.Setup) error {
	if len(s.Addrs) > 0 {
		q.endpoint = s.Addrs[0]
	} else {
		st, err := services.Start(ctx, services.Options{SQS: true, Log: s.Log})
		if err != nil {
			return fmt.Errorf("start an SQS for the run (or set consumer.brokers): %v", err)
		}
		q.undo = append(q.undo, func() { _ = st.Stop(context.Background()) })
		q.endpoint = st.SQS.Endpoint()
	}
	q.cl = newClient(q.endpoint)
	if len(s.Addrs) > 0 {
		sweepStale(ctx, q.cl, []string{s.QueueName, s.Kind.DeadLetter}, time.Now(), s.Log)
	}
	q.name = strings.ReplaceAll(s.QueueName, "{{run}}", s.Run)
	q.dlName = strings.ReplaceAll(s.Kind.DeadLetter, "{{run}}", s.Run)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	if q.dlURL, err = q.create(cctx, q.dlName, nil); err != nil {
		return err
	}
	arn, err := q.arn(cctx, q.dlURL)
	if err != nil {
		return err
	}
	redrive, _ := json.Marshal(map[string]string{"deadLetterTargetArn": arn, "maxReceiveCount": fmt.Sprint(s.Kind.MaxReceives)})
	q.url, err = q.create(cctx, q.name, map[string]string{
		string(types.QueueAttributeNameVisibilityTimeout): fmt.Sprint(int(s.Kind.Visibility / time.Second)),
		string(types.QueueAttributeNameRedrivePolicy):     string(redrive),
	})
	return err
}

// newClient is an SQS client of endpoint that never retries by itself: a
// send whose reply was lost and that the SDK sent again would put a
// message in the queue that no check produced. It signs with the AWS
// variables when they are set (a real AWS endpoint checks them); a local
// server takes any.
func newClient(endpoint string) *sqs.Client {
	region := firstSet(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), "us-east-1")
	key, secret := firstSet(os.Getenv("AWS_ACCESS_KEY_ID"), "idemcheck"), firstSet(os.Getenv("AWS_SECRET_ACCESS_KEY"), "idemcheck")
	return sqs.New(sqs.Options{Region: region, BaseEndpoint: aws.String(endpoint), Retryer: aws.NopRetryer{},
		HTTPClient:  &http.Client{Timeout: 15 * time.Second},
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))})
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// create makes one queue of the run's kind (FIFO, content dedup) with
// attrs, and deletes it on Close.
func (q *SQS) create(ctx context.Context, name string, attrs map[string]string) (string, error) {
	if attrs == nil {
		attrs = map[string]string{}
	}
	if q.kind.FIFO {
		attrs[string(types.QueueAttributeNameFifoQueue)] = "true"
		if q.kind.ContentDedup {
			attrs[string(types.QueueAttributeNameContentBasedDeduplication)] = "true"
		}
	}
	out, err := q.cl.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return "", fmt.Errorf("create queue %s on %s: %v", name, q.endpoint, err)
	}
	url := aws.ToString(out.QueueUrl)
	q.undo = append(q.undo, func() { q.drop(name, url) })
	return url, nil
}

func (q *SQS) arn(ctx context.Context, url string) (string, error) {
	out, err := q.cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return "", fmt.Errorf("read the ARN of %s: %v", url, err)
	}
	return out.Attributes[string(types.QueueAttributeNameQueueArn)], nil
}

// drop deletes one of the run's queues, saying what it could not.
func (q *SQS) drop(name, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := q.cl.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}); err != nil {
		fmt.Fprintf(q.log, "idemcheck run: delete queue %s: %v\n", name, err)
	}
}

// Caps drops the dedup window of a standard queue.
func (q *SQS) Caps() broker.Caps {
	if q.kind.FIFO {
		return Caps
	}
	return Caps &^ broker.DedupWindow
}

// DedupWindow is a FIFO queue's window (0 on a standard queue, whose Caps
// says it has none).
func (q *SQS) DedupWindow() time.Duration {
	if q.kind.FIFO {
		return Window
	}
	return 0
}

// DeadLetterAfter: a message the consumer keeps failing is received
// max_receives times, each after the last one's visibility ended, and
// moved on the receive after that.
func (q *SQS) DeadLetterAfter() time.Duration {
	return time.Duration(q.kind.MaxReceives+1) * q.kind.Visibility
}

func (q *SQS) Where() broker.Endpoint {
	return broker.Endpoint{Addrs: []string{q.endpoint}, Queue: q.url, DeadLetter: q.dlURL}
}

func (q *SQS) Describe() string {
	kind := "standard"
	if q.kind.FIFO {
		kind = "FIFO, a 5m0s dedup window"
		if q.kind.ContentDedup {
			kind += ", content-based dedup"
		}
	}
	return fmt.Sprintf("SQS %s, queue %s (%s, visibility timeout %s), dead-letter queue %s after %d receive(s)",
		q.endpoint, q.name, kind, q.kind.Visibility, q.dlName, q.kind.MaxReceives)
}

// Place is a message's id; short, its first 8 characters (a UUID's first
// group on AWS and ElasticMQ).
func (q *SQS) Place(p broker.Pos) broker.Place {
	return broker.Place{Long: "message id " + p.ID, Short: p.ID[:min(8, len(p.ID))]}
}

// Words: a message is acknowledged by its DeleteMessage, which the broker
// shows only as the queue's counts: the evidence is the queue drained.
func (q *SQS) Words() broker.Words {
	return broker.Words{Ack: "DeleteMessage", AckOf: "the DeleteMessage of", Who: "the queue", Named: "queue " + q.name,
		Past: "drained of", Done: "drained from the queue", Evidence: "SQS said", Acks: "deletes the message",
		Hint: "delete each message once it is credited", Store: "queue " + q.name, Lane: "the queue"}
}

// Close deletes the queue and its dead-letter queue and stops the
// ElasticMQ it started, in that order.
func (q *SQS) Close() {
	for i := len(q.undo) - 1; i >= 0; i-- {
		q.undo[i]()
	}
	q.undo = nil
}

// Produce sends each record in order and waits for SQS's answer, which
// carries its message id. On a FIFO queue the record's key is its
// MessageGroupId (the records of one key keep their order) and its DedupID
// its MessageDeduplicationId; a copy SQS drops as a duplicate is answered
// with its original's id.
func (q *SQS) Produce(ctx context.Context, recs []*broker.Record) error {
	for i, r := range recs {
		in := &sqs.SendMessageInput{QueueUrl: aws.String(q.url), MessageBody: aws.String(string(r.Value))}
		if q.kind.FIFO {
			in.MessageGroupId = aws.String(firstSet(string(r.Key), "idemcheck"))
			if r.DedupID != "" {
				in.MessageDeduplicationId = aws.String(r.DedupID)
			}
		}
		out, err := q.cl.SendMessage(ctx, in)
		if err != nil {
			return &broker.ProduceError{I: i, Err: err}
		}
		q.mu.Lock()
		r.At = broker.Pos{Offset: q.produced, ID: aws.ToString(out.MessageId)}
		q.produced++
		q.mu.Unlock()
	}
	return nil
}

// Group: SQS shows no consumers (Caps has no Members); the checks that
// need them are n/a.
func (q *SQS) Group(context.Context) (broker.Group, error) { return broker.Group{}, nil }

var _ broker.Deduper = (*SQS)(nil)
var _ broker.Redriver = (*SQS)(nil)
var _ broker.Worder = (*SQS)(nil)

// VisibilityTimeout is the queue's (a consumer may set its own per receive).
func (q *SQS) VisibilityTimeout() time.Duration { return q.kind.Visibility }

var _ broker.Visibler = (*SQS)(nil)
