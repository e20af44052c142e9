package tier

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

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// FailpointPath is where a tier's admin endpoint serves its failpoints:
// GET lists every point's counters; PUT <path>/<name> with the action as body
// arms a point; DELETE <path>/<name> disarms it. faults.FailpointAt is the
// harness's client for it.
const FailpointPath = "/failpoints"

// FailpointHandler serves this process's failpoints at FailpointPath.
func FailpointHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, FailpointPath), "/")
		switch {
		case r.Method == http.MethodGet:
			WriteJSON(w, failpoint.Snapshot())
		case r.Method == http.MethodPut && name != "":
			body, _ := io.ReadAll(io.LimitReader(r.Body, 256))
			if err := failpoint.Arm(name, string(body)); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodDelete && name != "":
			failpoint.Disarm(name)
			w.WriteHeader(http.StatusNoContent)
		default:
			http.Error(w, "failpoints: GET, PUT /<name>, DELETE /<name>", http.StatusMethodNotAllowed)
		}
	})
}

// JSON serves what v returns, as JSON, at each request: a tier's status or
// counters on its admin endpoint.
func JSON(v func() any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, v()) })
}

// WriteJSON answers v as JSON.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// ServeAdmin starts a tier's loopback admin endpoint with the failpoints, the
// clock (when not nil), and whatever extra handlers the tier mounts. It
// returns the base URL; the server stops when ctx ends.
func ServeAdmin(ctx context.Context, clock *storytime.Clock, extra map[string]http.Handler) (string, error) {
	mux := http.NewServeMux()
	mux.Handle(FailpointPath, FailpointHandler())
	mux.Handle(FailpointPath+"/", FailpointHandler())
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
