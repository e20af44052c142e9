package core

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHoldReleasesInTheOrderAsked: a hold keeps the events it matches out
// of the schedule, lists each once, and Release sends those named first,
// then the rest in the order raised; an event it does not match goes at once.
func TestHoldReleasesInTheOrderAsked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	log := &DeliveryLog{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := NewWorker(ctx, WorkerConfig{EndpointID: "ep", URL: srv.URL,
		Schedule: Schedule{Base: time.Minute, Factor: 2, Horizon: time.Hour, Timeout: 5 * time.Second},
		Faults:   NewFaults(func(bool) {}, nil), Pause: NewPauser(), Log: log,
		Send: func(ctx context.Context, c *http.Client, e Event) (Answer, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(e.EventID()))
			if err != nil {
				return Answer{}, err
			}
			return Post(c, req)
		},
		Accepted: func(a Answer) bool { return a.Status == 200 },
	})
	done := make(chan struct{})
	go func() { defer close(done); w.Run() }()
	defer func() { w.Stop(); <-done }()

	unregistered := 0
	h := NewHold(func(e Event) bool { return e.EventID() != "free" }, func() { unregistered++ })
	for _, id := range []string{"a", "b", "c", "b"} {
		if !h.Take(testEvent{id}, w) {
			t.Fatalf("hold refused %s", id)
		}
	}
	if h.Take(testEvent{"free"}, w) {
		t.Fatal("hold took an event its match refuses")
	}
	w.Enqueue(testEvent{"free"})
	wait := func(n int) {
		deadline := time.After(10 * time.Second)
		for {
			added := log.Added() // before counting, so no addition is missed
			if log.Len() >= n {
				break
			}
			select {
			case <-added:
			case <-deadline:
				t.Fatalf("deliveries after 10 s: %+v, want %d", log.All(), n)
			}
		}
	}
	wait(1)
	var ids []string
	for _, e := range h.Events() {
		ids = append(ids, e.EventID())
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Fatalf("held events %v, want a,b,c (each once, in the order raised)", ids)
	}
	h.Release("c", "b")
	wait(5)
	ids = nil
	for _, d := range log.All() {
		ids = append(ids, d.EventID)
	}
	if strings.Join(ids, ",") != "free,c,b,b,a" || unregistered != 1 {
		t.Fatalf("delivery order %v, unregistered %d; want free,c,b,b,a and 1", ids, unregistered)
	}
	if h.Take(testEvent{"late"}, w) {
		t.Fatal("a released hold still takes events")
	}
}
