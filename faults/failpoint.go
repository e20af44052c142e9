package faults

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// FailpointPath is where a tier's admin endpoint serves its failpoints
// (targets/tier.FailpointPath; a test there keeps the two the same).
const FailpointPath = "/failpoints"

// Failpoint is one named failpoint in the tier process behind an admin URL.
// Arm it, read how often it Fired, Undo it; the tier declares the name next
// to its code and arms a list at start with its -failpoints flag.
type Failpoint struct {
	Admin string // the tier's admin base URL (http://host:port)
	Name  string
}

// FailpointAt names point name in the process behind adminURL.
func FailpointAt(adminURL, name string) Failpoint { return Failpoint{Admin: adminURL, Name: name} }

// FailpointStatus is one point's counters as the tier reports them.
type FailpointStatus struct {
	Name   string `json:"name"`
	Armed  string `json:"armed,omitempty"` // the action, "" when disarmed
	Passes int64  `json:"passes"`          // times code went through the point
	Fired  int64  `json:"fired"`           // times an armed action ran
}

// Arm arms the point with action: "pause", "crash", "error", "sleep(250ms)",
// optionally "N*" before it to fire only N times. The tier refuses an unknown
// point or action, and Arm returns its answer.
func (p Failpoint) Arm(action string) error {
	return p.call(http.MethodPut, action)
}

// Undo disarms the point.
func (p Failpoint) Undo() error { return p.call(http.MethodDelete, "") }

// Fired returns how many times an armed action ran at the point (0 when it
// never fired).
func (p Failpoint) Fired() (int64, error) {
	st, err := p.Status()
	return st.Fired, err
}

// Status returns the point's counters; a point the tier does not know is an
// error, never a zero status.
func (p Failpoint) Status() (FailpointStatus, error) {
	var all []FailpointStatus
	if err := GetJSON(p.Admin+FailpointPath, &all); err != nil {
		return FailpointStatus{}, fmt.Errorf("failpoints %s: %w", p.Admin, err)
	}
	for _, s := range all {
		if s.Name == p.Name {
			return s, nil
		}
	}
	return FailpointStatus{}, fmt.Errorf("failpoints %s: no point %q", p.Admin, p.Name)
}

func (p Failpoint) call(method, body string) error {
	url := p.Admin + FailpointPath + "/" + p.Name
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := adminClient.Do(req)
	if err != nil {
		return fmt.Errorf("failpoint %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("failpoint %s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

var adminClient = &http.Client{Timeout: 5 * time.Second}

// GetJSON reads a tier's admin endpoint (its failpoints, status, counters)
// into out; an answer other than 200 is an error naming the URL, never a
// zero value.
func GetJSON(url string, out any) error {
	resp, err := adminClient.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
