package adyen

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// TestRetriesOnAdyensTable: a receiver that fails twice is retried on
// Adyen's table, scaled by the clock knob; every copy is the same item,
// validly signed, and the third is the last.
func TestRetriesOnAdyensTable(t *testing.T) {
	key := NewHMACKey()
	var mu sync.Mutex
	var got []Item
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var n Notification
		if err := json.Unmarshal(raw, &n); err != nil || len(n.Items) != 1 {
			t.Errorf("a delivery that is not a batch of one: %s", raw)
		}
		mu.Lock()
		defer mu.Unlock()
		got, at = append(got, n.Items[0].Item), append(at, time.Now())
		if len(got) < 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	log := &core.DeliveryLog{}
	const scale = 0.01 // 9 s is 90 ms
	w := core.NewWorker(context.Background(), core.WorkerConfig{EndpointID: "we_1", URL: srv.URL, Schedule: Scaled(Schedule(), scale),
		Faults: core.NewFaults(func(bool) {}, nil), Pause: core.NewPauser(), Log: log, Accepted: Accepted, Send: Sender(srv.URL, key)})
	go w.Run()
	defer w.Stop()
	it := docsItem
	it.EventDate = EventDate(time.Now())
	w.Enqueue(&Event{Item: it})
	deadline := time.After(10 * time.Second)
	for {
		added := log.Added() // before reading, so no addition is missed
		if ds := log.All(); len(ds) == 3 {
			break
		}
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("deliveries %+v, want 3", log.All())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, g := range got {
		if !ValidSignature(g, key) || g.DedupKey() != it.DedupKey() {
			t.Fatalf("copy %d: %+v", i+1, g)
		}
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < 90*time.Millisecond {
			t.Fatalf("retry %d came %s after the attempt before, want at least Adyen's 9 s scaled (90 ms)", i, gap)
		}
	}
	if ds := log.All(); ds[2].Status != http.StatusAccepted || ds[0].Attempt != 1 || ds[2].Attempt != 3 {
		t.Fatalf("log: %+v", ds)
	}
}

func TestScheduleIsAdyensTable(t *testing.T) {
	s := Schedule()
	want := []time.Duration{9 * time.Second, 9 * time.Second, 9 * time.Second, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
		15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour}
	for i, d := range want {
		if got := s.Backoff(i + 1); got != d {
			t.Fatalf("retry %d waits %s, want %s", i+1, got, d)
		}
	}
	if s.Horizon != 30*24*time.Hour {
		t.Fatalf("horizon %s", s.Horizon)
	}
}
