package services

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The local provider's SQS is a real server with SQS's FIFO semantics, as
// the official client sees them: a copy sent again with the same
// MessageDeduplicationId within the window is accepted and not delivered
// twice; a copy with another id is delivered, after the first, once that
// is deleted; and stopping leaves no process or dir.
func TestLocalSQSIsFIFOWithDedup(t *testing.T) {
	if os.Getenv(EnvSQSEndpoint) != "" {
		t.Skip(EnvSQSEndpoint + " is set: this test is about the local provider")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := startLocalElasticMQ(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := svc.(*localProc)
	defer func() {
		if err := svc.Stop(context.Background()); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
			t.Errorf("Stop left %s: %v", p.Dir(), err)
		}
	}()
	if !strings.HasPrefix(svc.Endpoint(), "http://127.0.0.1:") || !strings.HasPrefix(svc.Version(), "ElasticMQ 1.") {
		t.Fatalf("endpoint %q version %q", svc.Endpoint(), svc.Version())
	}
	cl := sqs.New(sqs.Options{Region: "elasticmq", BaseEndpoint: aws.String(svc.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("x", "x", "")})
	q, err := cl.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("payments.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	send := func(body, dedup string) string {
		out, err := cl.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body),
			MessageGroupId: aws.String("merchant-1"), MessageDeduplicationId: aws.String(dedup)})
		if err != nil {
			t.Fatalf("send %s/%s: %v", body, dedup, err)
		}
		return aws.ToString(out.MessageId)
	}
	first := send("credit pay_1", "evt_1")
	if again := send("credit pay_1", "evt_1"); again != first {
		t.Errorf("the copy with the same dedup id got message id %s, want the first's %s", again, first)
	}
	send("credit pay_1", "evt_1-redelivered")
	var got []string
	for range 3 {
		out, err := cl.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageDeduplicationId}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			got = append(got, m.Attributes[string(types.MessageSystemAttributeNameMessageDeduplicationId)])
			// A FIFO group holds its later messages back until this one
			// is deleted (or its visibility ends).
			if _, err := cl.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fmt.Sprint(got) != "[evt_1 evt_1-redelivered]" {
		t.Errorf("received dedup ids %v, want [evt_1 evt_1-redelivered]: the same id once, another id again, in order", got)
	}
}
