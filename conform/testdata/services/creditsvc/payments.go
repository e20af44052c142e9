package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// payments is the create path the harness probes and chaos drives: this
// service moves no money itself (it credits the records of payments made
// elsewhere), but its create is idempotent as the checks expect of any
// service: one payment id per key, kept in a file so a restart keeps it,
// the same answer to a retry (members reordered included), and 422 to a
// retry with another body.
type payments struct {
	path string
	mu   sync.Mutex
}

type created struct {
	Key  string `json:"key"`
	Body string `json:"body"` // canonical JSON of the request
	ID   string `json:"id"`
}

func (p *payments) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	var v any
	if err != nil || json.Unmarshal(raw, &v) != nil {
		http.Error(w, `{"error": "body is not JSON"}`, http.StatusBadRequest)
		return
	}
	canon, _ := json.Marshal(v) // maps marshal with sorted keys
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, `{"error": "Idempotency-Key is required"}`, http.StatusBadRequest)
		return
	}
	// Both instances share the file: a lock on it makes check-then-append
	// one step across processes.
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err == nil {
		defer f.Close()
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		http.Error(w, `{"error": "store"}`, http.StatusInternalServerError)
		return
	}
	for _, c := range p.rows() {
		if c.Key != key {
			continue
		}
		if c.Body != string(canon) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintln(w, `{"error": "Idempotency-Key reused with another request"}`)
			return
		}
		answer(w, c.ID)
		return
	}
	c := created{Key: key, Body: string(canon), ID: fmt.Sprintf("p-%d", time.Now().UnixNano())}
	line, _ := json.Marshal(c)
	if _, err = f.Write(append(line, '\n')); err == nil {
		err = f.Sync()
	}
	if err != nil {
		http.Error(w, `{"error": "store"}`, http.StatusInternalServerError)
		return
	}
	answer(w, c.ID)
}

func (p *payments) rows() []created {
	b, _ := os.ReadFile(p.path)
	var out []created
	for _, line := range bytes.Split(b, []byte("\n")) {
		var c created
		if json.Unmarshal(line, &c) == nil && c.Key != "" {
			out = append(out, c)
		}
	}
	return out
}

func answer(w http.ResponseWriter, id string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id": %q, "status": "succeeded"}`+"\n", strings.TrimSpace(id))
}
