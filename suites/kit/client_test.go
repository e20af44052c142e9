package kit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

func TestClientRecordsEveryCopy(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Idempotency-Key") != "K1" || r.Header.Get("Authorization") != "Bearer u1" {
			t.Errorf("headers %v", r.Header)
		}
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(`{"status":"processing","payment_id":"pay_1"}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"succeeded","payment_id":"pay_1"}`))
	}))
	defer srv.Close()
	rec := history.NewRecorder()
	c := &Client{Name: "app-1", Caller: "u1", URL: srv.URL, Rec: rec, Backoff: time.Millisecond,
		Header: http.Header{"Authorization": {"Bearer u1"}}}
	a := c.Pay(context.Background(), Payment{Key: "K1", Amount: 3000, Currency: "USD"}, 5)
	if a.Outcome != history.OutcomeSucceeded || a.PaymentID != "pay_1" || a.Code != http.StatusOK {
		t.Fatalf("answer %v", a)
	}
	h := rec.History()
	if len(h) != 2 {
		t.Fatalf("history has %d ops, want 2: %+v", len(h), h)
	}
	for i, want := range []string{history.OutcomeProcessing, history.OutcomeSucceeded} {
		op := h[i]
		if op.Op != history.OpCreate || op.Intent != "payments:u1:K1" || op.Output == nil || op.Output.Outcome != want ||
			op.PaymentID != "pay_1" || *op.Input.Amount != 3000 || op.Input.Currency != "USD" || op.Input.Fingerprint == "" {
			t.Errorf("op %d = %+v (output %+v)", i, op, op.Output)
		}
	}
	if h[0].Input.Fingerprint != h[1].Input.Fingerprint {
		t.Error("two copies of one payment have two fingerprints")
	}
}

func TestClientNoReplyIsUnknown(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	rec := history.NewRecorder()
	c := &Client{Name: "app-1", Caller: "u1", URL: srv.URL, Rec: rec, Timeout: 50 * time.Millisecond}
	a := c.Create(context.Background(), Payment{Key: "K1", Amount: 1, Currency: "USD"})
	if a.Known() || a.Code != 0 || a.Err == nil {
		t.Fatalf("answer %v, want no reply", a)
	}
	if h := rec.History(); len(h) != 1 || h[0].Return != nil {
		t.Fatalf("history %+v, want one op with no return", h)
	}
}

func TestJSONAnswer(t *testing.T) {
	for _, c := range []struct {
		code      int
		body      string
		want, pid string
	}{
		{200, `{"status":"succeeded","payment_id":"p"}`, history.OutcomeSucceeded, "p"},
		{402, `{"status":"failed"}`, history.OutcomeFailed, ""},
		{503, `{"status":"succeeded","payment_id":"p"}`, history.OutcomeError, "p"},
		{200, `{"status":"paid"}`, history.OutcomeError, ""},
		{200, `not json`, history.OutcomeError, ""},
	} {
		if got, pid := JSONAnswer(c.code, []byte(c.body)); got != c.want || pid != c.pid {
			t.Errorf("JSONAnswer(%d, %s) = %s %s, want %s %s", c.code, c.body, got, pid, c.want, c.pid)
		}
	}
}
