package core

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

type testEvent struct{ id string }

func (e testEvent) EventID() string     { return e.id }
func (e testEvent) EventType() string   { return "test.event" }
func (e testEvent) FaultTarget() Target { return Target{Key: "k-" + e.id, Op: "charge"} }

// TestEngineTakesTheDialectsAcceptance: the engine retries until the
// dialect's Accepted says received (here Adyen's rule: a 2xx whose body is
// "[accepted]"; a bare 200 is not received), then sends the duplicates a
// fault asked for, and logs each attempt with its number.
func TestEngineTakesTheDialectsAcceptance(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			_, _ = w.Write([]byte("ok")) // 200, but not Adyen's acknowledgement
			return
		}
		_, _ = w.Write([]byte("[accepted]"))
	}))
	defer srv.Close()

	faults := NewFaults(func(bool) {}, nil)
	dup := faults.Arm(FaultSpec{Kind: WebhookDuplicates, Match: Match{PSPKey: "k-e1"}, Extra: 1})
	log := &DeliveryLog{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := NewWorker(ctx, WorkerConfig{EndpointID: "ep1", URL: srv.URL,
		Schedule: Schedule{Base: 10 * time.Millisecond, Factor: 1, Horizon: time.Minute, Timeout: 5 * time.Second},
		Faults:   faults, Pause: NewPauser(), Log: log,
		Send: func(ctx context.Context, c *http.Client, e Event) (Answer, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader([]byte(e.EventID())))
			if err != nil {
				return Answer{}, err
			}
			return Post(c, req)
		},
		Accepted: func(a Answer) bool { return a.Status == 200 && string(a.Body) == "[accepted]" },
	})
	done := make(chan struct{})
	go func() { defer close(done); w.Run() }()
	w.Enqueue(testEvent{"e1"})

	deadline := time.After(10 * time.Second)
	for {
		added := log.Added() // before counting, so no addition is missed
		if log.Len() >= 3 {
			break
		}
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("deliveries after 10 s: %+v", log.All())
		}
	}
	w.Stop()
	<-done
	got := log.All()
	if len(got) != 3 {
		t.Fatalf("deliveries: %d, want 3 (refused, accepted, one duplicate): %+v", len(got), got)
	}
	want := []struct {
		attempt int
		dup     bool
	}{{1, false}, {2, false}, {1, true}}
	for i, d := range got {
		if d.EventID != "e1" || d.Endpoint != "ep1" || d.Status != 200 || d.Attempt != want[i].attempt || d.Duplicate != want[i].dup || d.GaveUp || d.Signature != SignValid {
			t.Errorf("delivery %d: %+v, want attempt %d duplicate %v status 200", i, d, want[i].attempt, want[i].dup)
		}
	}
	if dup.Fired() != 1 {
		t.Errorf("duplicates fault fired %d times, want 1", dup.Fired())
	}
	w.mu.Lock()
	left := len(w.q)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("%d deliveries still queued after the duplicate was accepted", left)
	}
}
