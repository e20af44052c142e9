package push

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// Client talks to a provider at BaseURL.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// NewClient returns a client whose requests are never replayed by the
// transport: each Send is one delivery attempt, so a sender that counts its
// sends counts what the phone got. Connections are kept alive (a worker
// pushes a whole batch at once); net/http replays a request on a reused
// connection only when it may (an idempotent method or an Idempotency-Key
// header, and a body it can rewind), and Send's POST has neither.
func NewClient(baseURL string) *Client {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	return &Client{BaseURL: baseURL, HTTP: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// Send delivers n. An error means the outcome is unknown: the phone may or
// may not show it.
func (c *Client) Send(ctx context.Context, n Notification) (Delivery, error) {
	b, err := json.Marshal(n)
	if err != nil {
		return Delivery{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+PathPush, bytes.NewReader(b))
	if err != nil {
		return Delivery{}, err
	}
	req.GetBody = nil // no rewindable body: never replayed, whatever the method
	req.Header.Set("Content-Type", "application/json")
	var d Delivery
	err = c.do(req, &d)
	return d, err
}

// Screen reads recipient's screen.
func (c *Client) Screen(ctx context.Context, recipient string) (ScreenState, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+PathScreen+"?recipient="+url.QueryEscape(recipient), nil)
	if err != nil {
		return ScreenState{}, err
	}
	var s ScreenState
	err = c.do(req, &s)
	return s, err
}

// History fetches the provider's notify ops.
func (c *Client) History(ctx context.Context) (history.History, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+PathHistory, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("push history: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("push history: %s", resp.Status)
	}
	return history.ReadJSONL(resp.Body)
}

func (c *Client) do(req *http.Request, out any) error {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("push %s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("push %s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(msg))
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
