package storytime

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Clock is a tier's own clock: the wall clock plus an offset the harness can
// advance over the admin endpoint. Expiry and deadlines are judged against it,
// never against Postgres now() or Valkey TTLs, so a test can jump an hour.
type Clock struct {
	offset atomic.Int64
}

// Now is the wall clock plus the offset.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Offset is the current offset.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// Set replaces the offset.
func (c *Clock) Set(d time.Duration) { c.offset.Store(int64(d)) }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// ClockPath is where Handler is mounted on a tier's admin endpoint.
const ClockPath = "/clock"

// Handler serves GET (read the offset) and PUT ?offset=<duration> (set it).
func (c *Clock) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodPut, http.MethodPost:
			d, err := time.ParseDuration(r.URL.Query().Get("offset"))
			if err != nil {
				http.Error(w, fmt.Sprintf("clock: offset: %v", err), http.StatusBadRequest)
				return
			}
			c.Set(d)
		default:
			http.Error(w, "clock: GET or PUT", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"offset": c.Offset().String()})
	})
}

// SetOffset sets the offset of the clock behind adminURL (a tier's admin base URL).
func SetOffset(adminURL string, d time.Duration) error {
	req, err := http.NewRequest(http.MethodPut, adminURL+ClockPath+"?offset="+d.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("clock %s: %w", adminURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("clock %s: %w", adminURL, ErrNoClock)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("clock %s: %s", adminURL, resp.Status)
	}
	return nil
}

// ErrNoClock: the tier's admin serves no story clock (a tier whose work
// waits on no story time, such as the worker).
var ErrNoClock = errors.New("the tier keeps no story clock")
