package reference

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/targets/relay"
)

// leftoverWait bounds how long the failover reads the payments log for R1's
// leftover copy once R1 has settled (or the wait for it gave up).
const leftoverWait = 5 * time.Second

// leftoverPublished reads the payments log and returns the payments among
// inFlight that R1's relay published a committed event of: R1's leftover
// copies, which R2 never hears of and must drop in its inbox when it
// publishes its own. It reads until it finds one or leftoverWait passes.
func (rg *regions) leftoverPublished(ctx context.Context, inFlight []string) ([]string, error) {
	if len(inFlight) == 0 {
		return nil, nil
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(rg.brokers), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{rg.topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		return nil, err
	}
	defer kc.Close()
	var evs []relay.Event
	var errs []error
	rctx, cancel := context.WithTimeout(ctx, leftoverWait)
	defer cancel()
	for len(leftoverOf(evs, inFlight)) == 0 && rctx.Err() == nil {
		fs := kc.PollFetches(rctx)
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				errs = append(errs, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			var ev relay.Event
			if json.Unmarshal(r.Value, &ev) == nil {
				evs = append(evs, ev)
			}
		})
	}
	return leftoverOf(evs, inFlight), errors.Join(errs...)
}

// leftoverOf lists the payments of inFlight that evs hold an event of, each
// once. It matches by payment id, not event id: a mutant R1 (random event
// id) leaves a copy R2's inbox cannot recognise, and that copy is the fault
// in effect too.
func leftoverOf(evs []relay.Event, inFlight []string) []string {
	var out []string
	for _, ev := range evs {
		if slices.Contains(inFlight, ev.PaymentID) && !slices.Contains(out, ev.PaymentID) {
			out = append(out, ev.PaymentID)
		}
	}
	return out
}
