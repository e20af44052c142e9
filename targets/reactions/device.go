package reactions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Device is the harness's phone for C2: every tap is journaled with the next
// counter and the phone's clock before its first send, and every resend
// carries the journal entry unchanged. Each copy sent is one write op in the
// history, recorded under the network path it took (a device with two paths
// is two client processes).
type Device struct {
	Name string
	// Clock is the phone's clock: what PhoneTime is stamped from. A fault
	// may step it back (a time daemon's correction).
	Clock *storytime.Clock
	// Timeout bounds one send; 0 means the story's phone timeout.
	Timeout time.Duration
	Rec     *history.Recorder

	mu      sync.Mutex
	next    int64
	journal []*Entry
}

// Entry is one journaled tap.
type Entry struct {
	Write
	acked bool
}

// NewDevice returns a device whose next tap gets counter first.
func NewDevice(name string, first int64, rec *history.Recorder) *Device {
	return &Device{Name: name, Clock: &storytime.Clock{}, Rec: rec, next: first}
}

// Tap journals the user's action on item and returns the entry to send.
func (d *Device) Tap(item, action string) *Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := &Entry{Write: Write{Device: d.Name, Item: item, Action: action, Counter: d.next, PhoneTime: d.Clock.Now().UnixNano()}}
	d.next++
	d.journal = append(d.journal, e)
	return e
}

// Unacked lists the journal entries no send has had acknowledged, oldest
// first: what the device resends.
func (d *Device) Unacked() []*Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*Entry
	for _, e := range d.journal {
		if !e.acked {
			out = append(out, e)
		}
	}
	return out
}

// Reply is what one send learned. Known is false when the device never got
// an answer (the reply was lost, or the timeout passed).
type Reply struct {
	Known  bool
	Status int
	Result Result
	Err    error
}

// Send sends e once to baseURL (the service, or a link in front of it) over a
// fresh connection, so net/http cannot resend it by itself and a fault on the
// link applies to this copy; path names the network path in the history.
func (d *Device) Send(ctx context.Context, path, baseURL string, e *Entry) Reply {
	return <-d.Start(ctx, path, baseURL, e)
}

// Start is Send in the background: the op's call is recorded before Start
// returns, so a copy started first is first in the history whatever the
// network does with it after.
func (d *Device) Start(ctx context.Context, path, baseURL string, e *Entry) <-chan Reply {
	in := history.Input{ShapeInput: history.ShapeInput{Device: d.Name, Item: e.Item, Value: e.Value(),
		Counter: history.Int64(e.Counter), PhoneTime: history.Int64(e.PhoneTime)}}
	p := d.Rec.Begin(path, history.OpWrite, "", in)
	done := make(chan Reply, 1)
	go func() {
		rep := d.post(ctx, baseURL, e.Write)
		switch {
		case !rep.Known:
			_ = p.Unknown()
		case rep.Status == http.StatusOK:
			_ = p.End(history.Output{Outcome: history.OutcomeOK})
			d.mu.Lock()
			e.acked = true
			d.mu.Unlock()
		default:
			_ = p.End(history.Output{Outcome: history.OutcomeError})
		}
		done <- rep
	}()
	return done
}

func (d *Device) post(ctx context.Context, baseURL string, w Write) Reply {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = storytime.D(storytime.PhoneTimeout)
	}
	body, _ := json.Marshal(w)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+Path, bytes.NewReader(body))
	if err != nil {
		return Reply{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return Reply{Err: fmt.Errorf("device %s: send counter %d: %w", d.Name, w.Counter, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		// The status came but the body did not: the answer is incomplete.
		return Reply{Err: fmt.Errorf("device %s: read reply of counter %d: %w", d.Name, w.Counter, err)}
	}
	rep := Reply{Known: true, Status: resp.StatusCode}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &rep.Result); err != nil {
			return Reply{Err: fmt.Errorf("device %s: reply of counter %d: %w", d.Name, w.Counter, err)}
		}
	}
	return rep
}
