package faults

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The pieces the window faults (window_faults.go) are made of: a freeze of
// the tiers that would settle a payment behind the client's back, counted so
// that two windows over the same tier thaw it only when both are done, and
// the load balancer's admin routes that pin traffic to one API server and
// hold requests in its queue.

// freezes counts the windows that keep each tier frozen, by tier name.
var freezes = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// frozen is a set of tiers one window froze; thaw undoes exactly those.
type frozen struct {
	tiers []Tier
	once  sync.Once
}

// freeze stops every tier of kinds that can be paused (SIGSTOP). A tier that
// another window holds already stays stopped and is counted once more.
func freeze(sys *System, kinds ...string) (*frozen, error) {
	fz := &frozen{}
	for _, k := range kinds {
		for _, t := range sys.TiersOf(k) {
			p := t.Proc
			if !CanPause(p) {
				continue
			}
			freezes.Lock()
			var err error
			if freezes.n[t.Name] == 0 {
				err = p.Pause()
			}
			if err == nil {
				freezes.n[t.Name]++
			}
			freezes.Unlock()
			if err != nil {
				fz.thaw()
				return nil, fmt.Errorf("freeze %s: %w", t.Name, err)
			}
			fz.tiers = append(fz.tiers, t)
		}
	}
	return fz, nil
}

// names lists the frozen tiers, for a story.
func (fz *frozen) names() string {
	var out []string
	for _, t := range fz.tiers {
		out = append(out, t.Name)
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, " and ")
}

// thaw resumes the tiers this window froze that no other window holds. A
// tier killed and restarted meanwhile gets a SIGCONT it does not need.
func (fz *frozen) thaw() error {
	var errs []string
	fz.once.Do(func() {
		for _, t := range fz.tiers {
			freezes.Lock()
			freezes.n[t.Name]--
			last := freezes.n[t.Name] <= 0
			if last {
				delete(freezes.n, t.Name)
			}
			freezes.Unlock()
			if last {
				if err := t.Proc.Resume(); err != nil && !t.Proc.Exited() {
					errs = append(errs, fmt.Sprintf("thaw %s: %v", t.Name, err))
				}
			}
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// lbTier is the system's load balancer with an admin endpoint, if any.
func lbTier(sys *System) (Tier, bool) {
	for _, t := range sys.TiersOf("lb") {
		if t.AdminURL() != "" {
			return t, true
		}
	}
	return Tier{}, false
}

// lbCall speaks the reference LB's admin routes (targets/lb): PUT
// /route?pin=N sends every request to backend N (pin=rr: round robin),
// PUT|DELETE /hold?backend=N keeps stamped requests in backend N's queue.
func lbCall(lb Tier, method, route string) error {
	url := strings.TrimRight(lb.AdminURL(), "/") + route
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return err
	}
	resp, err := adminClient.Do(req)
	if err != nil {
		return fmt.Errorf("lb %s %s: %w", method, route, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("lb %s %s: %s: %s", method, route, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// lbQueued is how many stamped requests wait in backend i's queue, as the
// LB counts them: the evidence, outside the API servers, that a request is
// held in the LB path.
func lbQueued(lb Tier, i int) (int64, error) {
	var st []struct {
		Queued int64 `json:"queued"`
	}
	resp, err := adminClient.Get(strings.TrimRight(lb.AdminURL(), "/") + "/lb")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("lb /lb: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return 0, fmt.Errorf("lb /lb: %w", err)
	}
	if i >= len(st) {
		return 0, fmt.Errorf("lb /lb: no backend %d of %d", i, len(st))
	}
	return st[i].Queued, nil
}

// later runs f after d in the background: a window's tail, which must outlast
// Undo because the client's retries that the window is aimed at are sent
// after it.
func later(d time.Duration, f func()) { time.AfterFunc(d, f) }

// windowInjection is an injection that tells its story: the intent, the
// window it hit and how the harness knows.
type windowInjection struct {
	injection
	story func() string
}

// Story names the intent's window, once the fault fired.
func (w *windowInjection) Story() string { return w.story() }
