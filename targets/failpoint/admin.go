package failpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Path is where the failpoint API is mounted on a tier's admin endpoint:
// GET /failpoints lists counters; PUT /failpoints/<name> with the action as
// body arms a point; DELETE /failpoints/<name> disarms it.
const Path = "/failpoints"

// Handler serves the failpoint API.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, Path), "/")
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(Snapshot())
		case r.Method == http.MethodPut && name != "":
			body, _ := io.ReadAll(io.LimitReader(r.Body, 256))
			if err := Arm(name, string(body)); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodDelete && name != "":
			Disarm(name)
			w.WriteHeader(http.StatusNoContent)
		default:
			http.Error(w, "failpoints: GET, PUT /<name>, DELETE /<name>", http.StatusMethodNotAllowed)
		}
	})
}

// ServeAdmin starts a tier's loopback admin endpoint with the failpoint API,
// the clock, and whatever extra handlers the tier mounts. It returns the base
// URL; the server stops when ctx ends.
func ServeAdmin(ctx context.Context, clock *storytime.Clock, extra map[string]http.Handler) (string, error) {
	mux := http.NewServeMux()
	mux.Handle(Path, Handler())
	mux.Handle(Path+"/", Handler())
	if clock != nil {
		mux.Handle(storytime.ClockPath, clock.Handler())
	}
	for p, h := range extra {
		mux.Handle(p, h)
	}
	return Serve(ctx, "127.0.0.1:0", mux)
}

// Serve serves h on addr until ctx ends and returns http://host:port.
func Serve(ctx context.Context, addr string, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + ln.Addr().String(), nil
}

// ArmAt arms name with action on the process behind adminURL.
func ArmAt(adminURL, name, action string) error {
	return call(http.MethodPut, adminURL+Path+"/"+name, action)
}

// DisarmAt disarms name on the process behind adminURL.
func DisarmAt(adminURL, name string) error {
	return call(http.MethodDelete, adminURL+Path+"/"+name, "")
}

// Hits returns how many times an armed action fired at name in the process
// behind adminURL (0 when the point never fired).
func Hits(adminURL, name string) (int64, error) {
	st, err := StatusAt(adminURL, name)
	return st.Fired, err
}

// StatusAt returns name's counters in the process behind adminURL.
func StatusAt(adminURL, name string) (Status, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(adminURL + Path)
	if err != nil {
		return Status{}, fmt.Errorf("failpoints %s: %w", adminURL, err)
	}
	defer resp.Body.Close()
	var all []Status
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil {
		return Status{}, fmt.Errorf("failpoints %s: %w", adminURL, err)
	}
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return Status{}, fmt.Errorf("failpoints %s: no point %q", adminURL, name)
}

func call(method, url, body string) error {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
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

// WriteAddrs publishes a tier's listening addresses to path (written whole,
// then renamed, so a reader never sees half a file).
func WriteAddrs(path string, addrs map[string]string) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(addrs)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadAddrs waits until a tier has published its addresses to path, or until
// ctx ends (the caller bounds it, and checks the process is still alive).
func ReadAddrs(ctx context.Context, path string) (map[string]string, error) {
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var m map[string]string
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("addr file %s: %w", path, err)
			}
			return m, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("addr file %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Stopped reports whether pid is stopped (state T in /proc), which is how a
// harness sees a pause failpoint fire: the paused process cannot answer.
func Stopped(pid int) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	st := s[i+2]
	return st == 'T' || st == 't', nil
}

// GetJSON reads a tier's admin endpoint (its status, its counters) into out;
// an answer other than 200 is an error naming the URL, never a zero value.
func GetJSON(url string, out any) error {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
