package push

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/idemcheck/idemcheck/checker/history"
)

// Paths of the provider's HTTP API.
const (
	PathPush    = "/push"
	PathScreen  = "/_push/screen"
	PathHistory = "/_push/history"
)

// Process is the process name of the provider's notify ops.
const Process = "push"

// Server is the provider: phones plus the ground-truth notify history.
type Server struct {
	Phones *Phones
	// mu serialises deliveries so each notify op's [call, return] lies
	// strictly after the previous one's: the provider is one process and
	// its history must not overlap itself.
	mu  sync.Mutex
	rec *history.Recorder
}

// NewServer returns a provider with empty screens and history.
func NewServer() *Server {
	return &Server{Phones: NewPhones(), rec: history.NewRecorder()}
}

// Deliver shows n and records the notify op.
func (s *Server) Deliver(n Notification) (Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	call := history.Now()
	d, err := s.Phones.Deliver(n)
	if err != nil {
		return d, err
	}
	ret := history.Now()
	op := history.Op{
		Process: Process, Op: history.OpNotify, Call: call, Return: &ret,
		Intent: n.Intent, PaymentID: n.PaymentID,
		Input:  history.Input{ReplaceID: d.ID, Recipient: n.Recipient, EventID: n.EventID},
		Output: &history.Output{Shown: history.Int(d.Shown), Alert: history.Bool(d.Alert)},
	}
	if err := s.rec.Record(op); err != nil {
		return d, fmt.Errorf("push: record: %w", err)
	}
	return d, nil
}

// History returns the notify ops so far.
func (s *Server) History() history.History { return s.rec.History() }

// Handler serves POST /push, GET /_push/screen?recipient=, GET /_push/history.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathPush, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "push: POST only", http.StatusMethodNotAllowed)
			return
		}
		var n Notification
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&n); err != nil {
			http.Error(w, "push: body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if n.Recipient == "" || (n.PaymentID == "" && n.Intent == "") {
			http.Error(w, "push: recipient and payment_id or intent are required", http.StatusBadRequest)
			return
		}
		d, err := s.Deliver(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, d)
	})
	mux.HandleFunc(PathScreen, func(w http.ResponseWriter, r *http.Request) {
		rcpt := r.URL.Query().Get("recipient")
		if rcpt == "" {
			http.Error(w, "push: recipient query parameter is required", http.StatusBadRequest)
			return
		}
		writeJSON(w, s.Phones.Screen(rcpt))
	})
	mux.HandleFunc(PathHistory, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_ = history.WriteJSONL(w, s.History())
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
