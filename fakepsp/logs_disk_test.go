package fakepsp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// logsIntents is past two chunks of the logs on disk, and not a multiple
// of a chunk, so that every log has records on disk and in its tail.
const logsIntents = 2*spill.ChunkLen + 12

// The ground truth, the calls and the deliveries read back from disk are
// the ops as they happened (the hook saw them), in order, and complete.
func TestLogsOnDiskReadBackWhole(t *testing.T) {
	var mu sync.Mutex
	var hooked []history.Op
	p := start(t, Config{OnOp: func(op history.Op) { mu.Lock(); hooked = append(hooked, op); mu.Unlock() }})
	events := chargeMany(t, p, logsIntents)
	if p.logs.Size() == 0 {
		t.Fatal("nothing of the logs was written to disk")
	}
	charges := p.Charges()
	mu.Lock()
	defer mu.Unlock()
	if len(charges) != logsIntents || !reflect.DeepEqual(charges, hooked) {
		t.Fatalf("%d charges read back, %d hooked; equal: %v", len(charges), len(hooked), reflect.DeepEqual(charges, hooked))
	}
	if h := p.History(); len(h) != logsIntents || p.ChargeCount() != logsIntents || len(p.Refunds()) != 0 {
		t.Fatalf("history %d ops, ChargeCount %d, refunds %d", len(h), p.ChargeCount(), len(p.Refunds()))
	}
	calls := p.Calls()
	if len(calls) != logsIntents {
		t.Fatalf("%d calls, want %d", len(calls), logsIntents)
	}
	for i, c := range calls {
		if want := "k" + strconv.Itoa(i); c.IdempotencyKey != want || c.Status != 200 || !c.Executed || c.Endpoint != "POST /v1/payment_intents" {
			t.Fatalf("call %d: %+v, want key %s executed, 200", i, c, want)
		}
		if i > 0 && c.At.Before(calls[i-1].At) {
			t.Fatalf("call %d went back in time: %v < %v", i, c.At, calls[i-1].At)
		}
	}
	if got := len(p.CallsWithKey("k7")); got != 1 {
		t.Fatalf("%d calls with key k7, want 1", got)
	}
	ds := p.Deliveries()
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Status != 200 || d.Signature != core.SignValid || d.At.IsZero() || d.Started.IsZero() || d.EventID == "" {
			t.Fatalf("delivery read back: %+v", d)
		}
		seen[d.EventID] = true
	}
	if len(seen) != events || events < logsIntents {
		t.Fatalf("%d deliveries of %d distinct events, want each of the %d events (at least %d)", len(ds), len(seen), events, logsIntents)
	}
	if err := p.ReadError(); err != nil {
		t.Fatalf("ReadError with every read whole: %v", err)
	}
}

// A log on disk that cannot be read: the reads return what they can (the
// records still in memory) and ReadError says they are short, once; the
// control API and WriteHistory answer an error, never the shorter list.
func TestLogsThatCannotBeReadAreAnError(t *testing.T) {
	p := start(t, Config{})
	chargeMany(t, p, logsIntents)
	remote, err := Dial(context.Background(), p.URL())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.logs.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := len(p.Charges()), logsIntents%spill.ChunkLen; got != want {
		t.Fatalf("Charges after the store closed: %d, want the %d in memory", got, want)
	}
	err = p.ReadError()
	if !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "ground truth: read 12 of its 140 charge ops") {
		t.Fatalf("ReadError: %v, want the ground truth's ErrClosed", err)
	}
	if err := p.ReadError(); err != nil {
		t.Fatalf("ReadError asked again: %v, want nil (forgotten)", err)
	}
	if ChargeCount := p.ChargeCount(); ChargeCount != logsIntents {
		t.Fatalf("ChargeCount %d, want %d (counted in memory)", ChargeCount, logsIntents)
	}
	if got := len(p.Calls()); got != logsIntents%spill.ChunkLen {
		t.Fatalf("Calls after the store closed: %d", got)
	}
	if err := p.ReadError(); !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "call log: read 12 of its 140 calls") {
		t.Fatalf("ReadError after Calls: %v", err)
	}
	_ = p.Deliveries()
	if err := p.ReadError(); !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "delivery log") {
		t.Fatalf("ReadError after Deliveries: %v", err)
	}
	for _, path := range []string{"/_psp/history", "/_psp/history?op=charge", "/_psp/deliveries"} {
		a := get(t, p, path)
		if a.status != http.StatusInternalServerError || !bytes.Contains(a.raw, []byte("closed")) {
			t.Fatalf("GET %s with its log unreadable: %d %s, want a 500 naming it", path, a.status, a.raw)
		}
	}
	// A PSP reached by URL: the 500 is the remote's read error, no charges.
	if got := remote.Charges(); len(got) != 0 {
		t.Fatalf("the remote read %d charges from a history that cannot be read", len(got))
	}
	if err := remote.ReadError(); err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("the remote's ReadError: %v, want the 500 naming the closed store", err)
	}
	var buf bytes.Buffer
	if err := p.WriteHistory(&buf); !errors.Is(err, spill.ErrClosed) || buf.Len() != 0 {
		t.Fatalf("WriteHistory: %v, %d bytes written; want ErrClosed and nothing", err, buf.Len())
	}
}

// chargeMany creates and confirms n payments (keys k0...), one call each,
// to a registered endpoint, and waits until each has its events delivered.
func chargeMany(t *testing.T, p *PSP, n int) (events int) {
	t.Helper()
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(recv.Close)
	if _, err := p.RegisterWebhook(recv.URL); err != nil {
		t.Fatal(err)
	}
	events = 0
	for i := range n {
		id := "pay_" + strconv.Itoa(i)
		a := form(t, p, "/v1/payment_intents", "k"+strconv.Itoa(i), payment("1000", "pm_card_visa", id))
		wantStatus(t, "create "+id, a, 200)
		events += len(p.WebhookEvents(a.str("id")))
	}
	wantCharges(t, p, n)
	waitFor(t, "every event delivered", 30*time.Second, func() bool {
		seen := map[string]bool{}
		for _, d := range p.Deliveries() {
			seen[d.EventID] = true
		}
		return len(seen) == events
	})
	return events
}
