package sqs

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// sweepStale deletes the queues that runs of this config left on the
// user's endpoint when they were SIGKILLed (and so never deleted them):
// those named by one of tmpls and started over broker.StaleAfter ago. SQS
// shows no consumers, so age alone says a run is over. What it cannot
// delete it says, and the run goes on.
func sweepStale(ctx context.Context, cl *sqs.Client, tmpls []string, now time.Time, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, tmpl := range tmpls {
		prefix, _, _ := strings.Cut(tmpl, "{{run}}")
		p := sqs.NewListQueuesPaginator(cl, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(prefix)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				fmt.Fprintf(stderr, "idemcheck run: list queues to sweep stale runs: %v\n", err)
				return
			}
			for _, url := range page.QueueUrls {
				name := path.Base(url)
				if _, ok := broker.StaleRun(name, tmpl, now); !ok {
					continue
				}
				fmt.Fprintf(stderr, "idemcheck run: sweeping queue %s, left by a run that did not end cleanly\n", name)
				if _, err := cl.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}); err != nil {
					fmt.Fprintf(stderr, "idemcheck run: delete queue %s: %v\n", name, err)
				}
			}
		}
	}
}
