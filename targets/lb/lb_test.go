package lb

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func TestStampsStripsAndHolds(t *testing.T) {
	var stamps []string
	var seen atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stamps = append(stamps, r.Header.Get(api.ArrivalHeader))
		seen.Add(1)
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b)
	}))
	defer backend.Close()
	l := New(&storytime.Clock{}, []string{backend.URL}, 1)
	front := httptest.NewServer(l)
	defer front.Close()

	before := time.Now().UnixNano()
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/payments", strings.NewReader("hello"))
	req.Header.Set(api.ArrivalHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Fatalf("body %q", body)
	}
	st, err := strconv.ParseInt(stamps[0], 10, 64)
	if err != nil || st < before {
		t.Fatalf("stamp %q: the client's own stamp was not replaced", stamps[0])
	}

	l.Hold(0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Post(front.URL+"/payments", "text/plain", strings.NewReader("x"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for l.Snapshot()[0].Queued != 1 {
		if time.Now().After(deadline) {
			t.Fatal("request never queued")
		}
		time.Sleep(time.Millisecond)
	}
	if seen.Load() != 1 || !l.Snapshot()[0].Held {
		t.Fatalf("held queue dispatched: seen %d", seen.Load())
	}
	l.Release(0)
	<-done
	if seen.Load() != 2 {
		t.Fatalf("released request not dispatched: seen %d", seen.Load())
	}
}
