package fakepsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// Remote is a fakepsp idemcheck did not start (`idemcheck psp` in a container
// or a pod beside the service), read over its control API. Its faults are
// armed at URL like the local one's.
type Remote struct {
	url  string
	info remoteInfo
	hc   *http.Client

	// skip counts the ops of each kind it held before this run dialled it:
	// a fakepsp that outlives runs keeps their charges, which are not this
	// run's (its log only grows, in order).
	skip map[string]int

	failed spill.FirstErr
}

type remoteInfo struct {
	SecretKey     string `json:"secret_key"`
	WebhookSecret string `json:"webhook_secret"`
	APIVersion    string `json:"api_version"`
	Paused        bool   `json:"paused"`
}

// Dial checks that url is a fakepsp's (GET /_psp/info answers as one).
func Dial(ctx context.Context, url string) (*Remote, error) {
	r := &Remote{url: strings.TrimRight(url, "/"), hc: &http.Client{Timeout: 10 * time.Second}}
	var last error
	// A pod or container beside the run may still be starting.
	for end := time.Now().Add(30 * time.Second); ; {
		b, err := r.get(ctx, "/_psp/info")
		if err == nil {
			if err := json.Unmarshal(b, &r.info); err != nil || !strings.HasPrefix(r.info.SecretKey, "sk_test_") {
				return nil, fmt.Errorf("GET %s/_psp/info did not answer as fakepsp (%.120q): is it `idemcheck psp`?", r.url, b)
			}
			r.skip = map[string]int{}
			for _, op := range []string{"charge", "refund"} {
				h := r.ops(op)
				if err := r.ReadError(); err != nil {
					return nil, err
				}
				r.skip[op] = len(h)
			}
			return r, nil
		}
		last = err
		if time.Now().After(end) || ctx.Err() != nil {
			return nil, fmt.Errorf("fakepsp at %s does not answer: %w", r.url, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// URL is its base URL, where the service charges and faults are armed.
func (r *Remote) URL() string { return r.url }

// SecretKey is its first account's key, the one the service must use.
func (r *Remote) SecretKey() string { return r.info.SecretKey }

// Charges is its ground truth of charges; a failed read is kept for ReadError.
func (r *Remote) Charges() []history.Op { return r.ops("charge") }

// Refunds is its ground truth of refunds.
func (r *Remote) Refunds() []history.Op { return r.ops("refund") }

// ReadError returns and forgets the first read that failed since last asked.
func (r *Remote) ReadError() error { return r.failed.Take() }

func (r *Remote) ops(op string) []history.Op {
	var err error
	for try := 0; try < 3; try++ {
		var b []byte
		if b, err = r.get(context.Background(), "/_psp/history?op="+op); err == nil {
			var h history.History
			if h, err = history.ReadJSONL(strings.NewReader(string(b))); err == nil {
				if n := r.skip[op]; n <= len(h) {
					return h[n:]
				}
				err = fmt.Errorf("its log shrank below the %d %s(s) it held when this run began: was it restarted?", r.skip[op], op)
			}
			break
		}
		time.Sleep(time.Duration(200<<try) * time.Millisecond)
	}
	r.failed.Keep(fmt.Errorf("GET %s/_psp/history?op=%s: %w", r.url, op, err))
	return nil
}

func (r *Remote) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", r.url+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %.200s", resp.Status, b)
	}
	return b, nil
}

// Sweep undoes what a killed run left armed on a fakepsp that outlives runs:
// its faults still armed, a pause. It returns what it undid, in words.
func (r *Remote) Sweep(ctx context.Context) ([]string, error) {
	var notes []string
	b, err := r.get(ctx, "/_psp/faults")
	if err != nil {
		return nil, fmt.Errorf("GET %s/_psp/faults: %w", r.url, err)
	}
	var fs []FaultInfo
	if err := json.Unmarshal(b, &fs); err != nil {
		return nil, fmt.Errorf("GET %s/_psp/faults: %w", r.url, err)
	}
	for _, f := range fs {
		if !f.Armed {
			continue
		}
		if err := r.send(ctx, "DELETE", "/_psp/faults/"+f.ID); err != nil {
			return notes, err
		}
		notes = append(notes, fmt.Sprintf("disarmed fault %s (%s) that an earlier run left armed at %s", f.ID, f.Kind, r.url))
	}
	if r.info.Paused {
		if err := r.send(ctx, "POST", "/_psp/resume"); err != nil {
			return notes, err
		}
		notes = append(notes, "resumed "+r.url+", which an earlier run left paused")
	}
	return notes, nil
}

func (r *Remote) send(ctx context.Context, method, path string) error {
	req, err := http.NewRequestWithContext(ctx, method, r.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s%s: %w", method, r.url, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s %s%s: %s: %.200s", method, r.url, path, resp.Status, b)
	}
	return nil
}
