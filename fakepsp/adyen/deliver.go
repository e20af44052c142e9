package adyen

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Sender is the delivery engine's Send for an endpoint with HMAC key
// secret: the event's item as a batch of one (Adyen's test platform sends
// one item per request), signed, posted.
func Sender(url, secret string) func(ctx context.Context, client *http.Client, ev core.Event) (core.Answer, error) {
	return func(ctx context.Context, client *http.Client, ev core.Event) (core.Answer, error) {
		raw, err := json.Marshal(Batch(ev.(*Event).Item))
		if err != nil {
			return core.Answer{}, err
		}
		req, err := webhookWire{}.Request(ctx, url, raw, secret, time.Now())
		if err != nil {
			return core.Answer{}, err
		}
		return core.Post(client, req)
	}
}
