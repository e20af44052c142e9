package scenario

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// The engine names no more of the fake PSP than LocalPSP; the PSP idemcheck
// starts is one.
var _ LocalPSP = (*fakepsp.PSP)(nil)

// TestFindingDeliveriesJSON pins the report's webhook deliveries, word for
// word: they are core.Delivery values now, and a report read by
// `idemcheck check` or a CI script must not see the change.
func TestFindingDeliveriesJSON(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC)
	f := Finding{Deliveries: []core.Delivery{{EventID: "evt_1", EventType: "payment_intent.succeeded", Endpoint: "we_1",
		URL: "http://127.0.0.1:9/hook", Attempt: 2, Duplicate: true, Status: 500, Err: "boom", At: at, Started: at.Add(-time.Second),
		Via: "duplicate, at once", Signature: core.SignValid, SignedAt: 1772366400}}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	const want = `[{"event_id":"evt_1","event_type":"payment_intent.succeeded","endpoint":"we_1","url":"http://127.0.0.1:9/hook",` +
		`"attempt":2,"duplicate":true,"status":500,"error":"boom","gave_up":false,"at":"2026-03-01T12:00:01Z",` +
		`"started":"2026-03-01T12:00:00Z","via":"duplicate, at once","signature":"valid","signed_at":1772366400}]`
	if got := string(m["webhook_deliveries"]); got != want {
		t.Fatalf("webhook_deliveries:\n got %s\nwant %s", got, want)
	}
}
