package checkout

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Routes mounts POST /payments and /payments/{id}/{captures|refunds|voids}.
func (s *server) Routes(mux *http.ServeMux) {
	mux.Handle("POST /payments", s.serve("POST /payments", func(a *account, _ *http.Request, body []byte, key string) answer {
		return a.api.pay(body, key)
	}))
	mux.Handle("POST /payments/{id}/{kind}", s.serve("POST /payments/{id}/{kind}", func(a *account, r *http.Request, body []byte, key string) answer {
		return a.api.act(r.PathValue("kind"), r.PathValue("id"), body, key)
	}))
}

// serve takes a request through Checkout.com's layers: authentication,
// the rate limit, Cko-Idempotency-Key (a key keeps only a processed,
// 2xx, answer; a failure is tried afresh), the operation, and the faults
// that lose, hold or replace its answer.
func (s *server) serve(endpoint string, h func(a *account, r *http.Request, body []byte, key string) answer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.h.Enter() {
			http.Error(w, "fakepsp closed", http.StatusServiceUnavailable)
			return
		}
		defer s.h.Leave()
		if !s.h.Wait(r.Context()) {
			return
		}
		key := strings.Clone(r.Header.Get(Keys.Header)) // kept by the key store: not the whole header line
		log := core.Call{Endpoint: endpoint, Path: r.URL.Path, IdempotencyKey: key}
		cred, ok := Dialect{}.Credential(r)
		a := s.account(cred)
		if !ok || a == nil {
			s.write(w, log, Dialect{}.Refuse(core.Refusal{Kind: core.RefuseBadCredential}))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if !s.h.Allow(cred, endpoint) || s.ops.Faults.Fire(core.RateLimit, target(r, body, key)) != nil {
			s.write(w, log, Dialect{}.Refuse(core.Refusal{Kind: core.RefuseRateLimited}))
			return
		}
		if key == "" {
			ans := h(a, r, body, "")
			log.Executed = ans.reply.Status < 300
			s.answer(w, r, log, ans)
			return
		}
		var ans answer
		out := core.Keyed{Rules: Keys, Window: s.h.KeyWindow(), Store: a.keys, Spill: s.ops.Spill, Lock: s.mu, Now: s.ops.Now, Key: key}.
			Do(func() (int, []byte, string, bool) {
				ans = h(a, r, body, key)
				raw, _ := json.Marshal(ans.reply.Body)
				return ans.reply.Status, raw, "", ans.reply.Status >= 200 && ans.reply.Status < 300
			})
		switch {
		case out.Refusal != nil:
			s.write(w, log, Dialect{}.Refuse(*out.Refusal))
		case out.Replay != nil:
			log.Replayed = true
			s.writeRaw(w, log, out.Replay.Status, out.Replay.Body)
		default:
			log.Executed = ans.reply.Status < 300
			s.answer(w, r, log, ans)
		}
	})
}

// answer writes ans unless a fault after the effect loses, holds or
// replaces it.
func (s *server) answer(w http.ResponseWriter, r *http.Request, log core.Call, ans answer) {
	a := ans.after
	if a.Withheld(r.Context(), s.ops.Ctx) {
		s.h.LogCall(log)
		core.DropConnection(w)
		return
	}
	if a.Refuse {
		ans.reply = Err(http.StatusBadGateway, "bad_gateway")
	}
	s.write(w, log, ans.reply)
}

func (s *server) write(w http.ResponseWriter, log core.Call, r core.Reply) {
	var raw []byte
	if r.Body != nil {
		raw, _ = json.Marshal(r.Body)
	}
	s.writeRaw(w, log, r.Status, raw)
}

func (s *server) writeRaw(w http.ResponseWriter, log core.Call, status int, body []byte) {
	log.Status = status
	s.h.LogCall(log)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// target is what a fault before anything ran matches a request on: its
// key, its amount and the effect it asks for.
func target(r *http.Request, body []byte, key string) core.Target {
	var req struct {
		Amount  *int64 `json:"amount"`
		Capture *bool  `json:"capture"`
	}
	_ = jsonUnmarshal(body, &req)
	t := core.Target{Key: key}
	if req.Amount != nil {
		t.Amount = *req.Amount
	}
	switch r.PathValue("kind") {
	case "":
		t.Op = "charge"
		if req.Capture != nil && !*req.Capture {
			t.Op = "authorize"
		}
	case "captures":
		t.Op = "charge"
	case "refunds":
		t.Op = "refund"
	case "voids":
		t.Op = "cancel"
	}
	return t
}
