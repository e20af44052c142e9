package adyen

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Server is Adyen's Checkout API over one merchant's API: its routes, its
// API key, and its idempotency keys.
type Server struct {
	API *API
	// APIKey is the key requests must carry in X-API-Key.
	APIKey string
	// Keys are the merchant's idempotency keys; API.Ops.Lock guards them.
	Keys *core.KeyStore
	// Window is how long a key's answer is kept (Keys.Window unless set).
	Window time.Duration
}

var version = regexp.MustCompile(`^v[0-9]+$`)

// Handler serves POST /{version}/payments and the modifications
// /{version}/payments/{pspReference}/{captures|refunds|cancels|reversals},
// any Checkout API version (the official libraries put it in the path).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{version}/payments", s.serve(func(r *http.Request, body []byte, key string) Answer {
		return s.API.Pay(body, key)
	}))
	mux.HandleFunc("POST /{version}/payments/{psp}/{kind}", s.serve(func(r *http.Request, body []byte, key string) Answer {
		return s.API.Modify(r.PathValue("kind"), r.PathValue("psp"), body, key)
	}))
	return mux
}

// serve authenticates, takes the request through Adyen's key rules and
// writes its answer.
func (s *Server) serve(h func(r *http.Request, body []byte, key string) Answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !version.MatchString(r.PathValue("version")) {
			write(w, Err(http.StatusNotFound, "000", "Not found", "validation"), "", false)
			return
		}
		if k, ok := (Dialect{}).Credential(r); !ok || k != s.APIKey {
			kind := core.RefuseNoCredential
			if ok {
				kind = core.RefuseBadCredential
			}
			write(w, Dialect{}.Refuse(core.Refusal{Kind: kind, Key: k}), "", false)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		key := r.Header.Get(Keys.Header)
		if key == "" {
			s.answer(w, r, h(r, body, ""), "")
			return
		}
		var ans Answer
		window := s.Window
		if window == 0 {
			window = Keys.Window
		}
		scope, fp := Bind(r, body)
		out := core.Keyed{Rules: Keys, Window: window, Store: s.Keys, Lock: s.API.Ops.Lock, Now: s.API.Ops.Now,
			Key: key, Scope: scope, Fingerprint: fp}.Do(func() (int, []byte, string, bool) {
			ans = h(r, body, key)
			if ans.After.Refuse {
				// The client is told of an internal error though the money
				// moved; Adyen returns "the response to the first attempt"
				// to a retry, so that is what is kept.
				ans.Reply, ans.After.Refuse = s.API.internal(), false
			}
			raw, _ := json.Marshal(ans.Reply.Body)
			// An answer refused before the operation ran (a validation
			// error, a fault before the effect) is not kept: a retry runs.
			return ans.Reply.Status, raw, "", ans.Began
		})
		switch {
		case out.Refusal != nil:
			write(w, Dialect{}.Refuse(*out.Refusal), key, false)
		case out.Replay != nil:
			writeRaw(w, out.Replay.Status, out.Replay.Body, key, true)
		default:
			s.answer(w, r, ans, key)
		}
	}
}

// answer writes ans unless a fault after the effect loses, holds or
// replaces it.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, ans Answer, key string) {
	a := ans.After
	if a.Hold != nil {
		select {
		case <-a.Hold.Released():
		case <-r.Context().Done():
			a.Lose = true
		case <-s.API.Ops.Ctx.Done():
			a.Lose = true
		}
	}
	if a.Lose {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		panic(http.ErrAbortHandler)
	}
	if a.Refuse {
		write(w, s.API.internal(), key, false)
		return
	}
	write(w, ans.Reply, key, false)
}

func write(w http.ResponseWriter, r core.Reply, key string, replayed bool) {
	raw, _ := json.Marshal(r.Body)
	writeRaw(w, r.Status, raw, key, replayed)
}

// writeRaw writes an answer with Adyen's headers: the Idempotency-Key
// echoed (how Adyen says a request was keyed), and Transient-Error on a
// 704 (retry later under the same key).
func writeRaw(w http.ResponseWriter, status int, body []byte, key string, replayed bool) {
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	if key != "" {
		h.Set(Keys.Header, key)
	}
	if status == http.StatusUnprocessableEntity && isInProgress(body) {
		h.Set(TransientHeader, "true")
	}
	_ = replayed // Adyen marks no replay: the answer is the first one, as it was
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func isInProgress(body []byte) bool {
	var e ServiceError
	return json.Unmarshal(body, &e) == nil && e.ErrorCode == CodeInProgress
}
