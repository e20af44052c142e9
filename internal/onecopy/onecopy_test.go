package onecopy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

func TestJSONOutcome(t *testing.T) {
	for _, tc := range []struct {
		status      int
		body, out   string
		wantPayment string
	}{
		{200, `{"status":"succeeded","payment_id":"pay_1"}`, history.OutcomeSucceeded, "pay_1"},
		{409, `{"status":"in_progress"}`, history.OutcomeInProgress, ""},
		{503, `{"status":"succeeded","payment_id":"pay_1"}`, history.OutcomeError, "pay_1"},
		{200, `{"status":"done"}`, history.OutcomeError, ""},
		{200, `not json`, history.OutcomeError, ""},
	} {
		out, pid := JSONOutcome(tc.status, []byte(tc.body))
		if out != tc.out || pid != tc.wantPayment {
			t.Errorf("JSONOutcome(%d, %s) = %s %q, want %s %q", tc.status, tc.body, out, pid, tc.out, tc.wantPayment)
		}
	}
}

// A status without its whole body is unknown, as no reply at all is.
func TestABodyCutShortIsUnknown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"status":`))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL, strings.NewReader("{}"))
	r := Do(Client(2*time.Second), req, 1<<16)
	if r.Known() || r.Status != 200 || r.Err == nil {
		t.Fatalf("cut body: %+v, want status 200, an error, unknown", r)
	}
}

// Each copy is one request on the wire: a connection dropped before the
// reply is not retried by net/http behind the caller's back.
func TestOneCopyPerDo(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		panic(http.ErrAbortHandler) // the connection closes with no reply
	}))
	defer srv.Close()
	c := Client(2 * time.Second)
	for range 3 {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL, strings.NewReader("{}"))
		if r := Do(c, req, 1<<16); r.Known() || r.Status != 0 {
			t.Fatalf("no reply: %+v, want unknown", r)
		}
	}
	if n.Load() != 3 {
		t.Fatalf("the server saw %d requests for 3 copies", n.Load())
	}
}

func TestRecord(t *testing.T) {
	rec := history.NewRecorder()
	in := history.Input{Fingerprint: "fp", Amount: history.Int64(100), Currency: "USD"}
	Record(rec.Begin("c1", history.OpCreate, "payments:u1:K1", in), false, history.Output{})
	Record(rec.Begin("c2", history.OpCreate, "payments:u1:K2", in), true, history.Output{Outcome: history.OutcomeSucceeded, PaymentID: "pay_2"})
	Record(nil, true, history.Output{})
	h := rec.History()
	if errs := rec.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(h) != 2 || h[0].Return != nil || h[1].Output.Outcome != history.OutcomeSucceeded || h[1].PaymentID != "pay_2" {
		t.Fatalf("history %+v", h)
	}
}
