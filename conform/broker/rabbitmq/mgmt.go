package rabbitmq

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// mgmt is the broker's management API, read for what AMQP does not tell:
// how many messages the consumers of a queue acknowledged, and which
// queues exist (for the sweep).
type mgmt struct {
	base  *url.URL
	vhost string
	http  *http.Client
}

func newMgmt(raw, vhost string) (*mgmt, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("consumer.brokers[1] %q is not a management API URL (http://user:password@host:15672)", redact(raw))
	}
	return &mgmt{base: u, vhost: vhost, http: &http.Client{Timeout: 5 * time.Second}}, nil
}

func (m *mgmt) redacted() string { return m.base.Redacted() }

// get decodes the JSON at /api/ and the segments, each escaped whole (a
// vhost "/" is one segment, %2F), into out.
func (m *mgmt) get(ctx context.Context, out any, segs ...string) error {
	u := *m.base
	u.User = nil
	u.Path, u.RawPath = "/api", "/api"
	for _, s := range segs {
		u.Path += "/" + s
		u.RawPath += "/" + url.PathEscape(s)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	if m.base.User != nil {
		pw, _ := m.base.User.Password()
		req.SetBasicAuth(m.base.User.Username(), pw)
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u.EscapedPath(), resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// await waits until the API answers its overview (a node's plugin starts
// serving a moment after AMQP may already).
func (m *mgmt) await(ctx context.Context, bound time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		var v map[string]any
		err := m.get(ctx, &v, "overview")
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// queueStats are the queue's acknowledgement and redelivery counters
// (message_stats.ack and .redeliver): counters that only grow, so a
// reading that lags the broker (by its statistics interval, 5 s by
// default) can only say too few, never too many.
func (m *mgmt) queueStats(ctx context.Context, queue string) (acks, redelivered int64, err error) {
	var q struct {
		Stats struct {
			Ack       int64 `json:"ack"`
			Redeliver int64 `json:"redeliver"`
		} `json:"message_stats"`
	}
	if err := m.get(ctx, &q, "queues", m.vhost, queue); err != nil {
		return 0, 0, err
	}
	return q.Stats.Ack, q.Stats.Redeliver, nil
}

// queueInfo is one queue the API lists.
type queueInfo struct {
	Name      string `json:"name"`
	Consumers int    `json:"consumers"`
}

// queues lists the vhost's queues.
func (m *mgmt) queues(ctx context.Context) ([]queueInfo, error) {
	var qs []queueInfo
	err := m.get(ctx, &qs, "queues", m.vhost)
	return qs, err
}
