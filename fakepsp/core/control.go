package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The control API: on the PSP's own address (loopback unless AllowRemote),
// no auth, JSON in and out. It keeps answering while the PSP is paused.
//
//	GET    /_psp/info                  url, secret_key, webhook_secret, api_version, paused, now
//	GET    /_psp/history[?op=charge]   ground truth as JSON Lines (HISTORY.md)
//	GET    /_psp/deliveries            webhook delivery attempts
//	POST   /_psp/accounts              new account: {"secret_key"}
//	GET    /_psp/faults                every fault with its fired count
//	POST   /_psp/faults                arm: {"kind","psp_key","amount","op","times","delay":"250ms","extra"}
//	GET    /_psp/faults/{id}
//	DELETE /_psp/faults/{id}           disarm (releases what it holds)
//	POST   /_psp/faults/{id}/release   open a gate, let held replies go
//	POST   /_psp/pause, /_psp/resume
//	POST   /_psp/clock/advance         {"by":"25h"}: move the PSP clock forward
//
// It is the same for every dialect: the dialect's part is in Info.
func ControlRoutes(mux *http.ServeMux, p ControlHost) {
	ctl := func(pattern string, h func(r *http.Request) (int, any)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !p.Enter() {
				http.Error(w, "fakepsp closed", http.StatusServiceUnavailable)
				return
			}
			defer p.Leave()
			status, body := h(r)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(body)
		})
	}
	mux.HandleFunc("GET /_psp/history", func(w http.ResponseWriter, r *http.Request) {
		op := r.URL.Query().Get("op")
		switch op {
		case "", "charge", "refund":
		default:
			http.Error(w, `{"error":"op must be charge or refund"}`, http.StatusBadRequest)
			return
		}
		ops, err := p.Truth.OpsErr(op)
		if err != nil {
			// A short history read as the whole one would hide a charge.
			http.Error(w, jsonError(err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		_ = WriteJSONL(w, ops)
	})
	ctl("GET /_psp/info", func(*http.Request) (int, any) {
		info := p.Info()
		info["paused"], info["now"] = p.Pause.Paused(), p.Now().UTC().Format(time.RFC3339Nano)
		return http.StatusOK, info
	})
	ctl("GET /_psp/deliveries", func(*http.Request) (int, any) {
		ds, err := p.Log.AllErr()
		if err != nil {
			return http.StatusInternalServerError, map[string]string{"error": err.Error()}
		}
		return http.StatusOK, nonNilSlice(ds)
	})
	ctl("POST /_psp/accounts", func(*http.Request) (int, any) {
		return http.StatusCreated, map[string]string{"secret_key": p.NewAccount()}
	})
	ctl("GET /_psp/faults", func(*http.Request) (int, any) {
		fs, err := p.Faults.List()
		if err != nil {
			return http.StatusInternalServerError, map[string]string{"error": err.Error()}
		}
		out := []FaultInfo{}
		for _, f := range fs {
			out = append(out, f.Info())
		}
		return http.StatusOK, out
	})
	ctl("POST /_psp/faults", func(r *http.Request) (int, any) {
		var req faultRequest
		dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<16))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return ctlErr("fault body: %v", err)
		}
		spec := FaultSpec{Kind: req.Kind, Match: req.Match, Extra: req.Extra}
		if req.Delay != "" {
			d, err := time.ParseDuration(req.Delay)
			if err != nil {
				return ctlErr("fault delay %q: %v", req.Delay, err)
			}
			spec.Delay = d
		}
		f, err := p.Faults.Add(spec)
		if err != nil {
			return ctlErr("%v", err)
		}
		return http.StatusCreated, f.Info()
	})
	withFault := func(pattern string, act func(*Fault)) {
		ctl(pattern, func(r *http.Request) (int, any) {
			f, err := p.Faults.Get(r.PathValue("id"))
			if err != nil {
				return http.StatusInternalServerError, map[string]string{"error": err.Error()}
			}
			if f == nil {
				return http.StatusNotFound, map[string]string{"error": "no fault " + r.PathValue("id")}
			}
			act(f)
			return http.StatusOK, f.Info()
		})
	}
	withFault("GET /_psp/faults/{id}", func(*Fault) {})
	withFault("DELETE /_psp/faults/{id}", (*Fault).Undo)
	withFault("POST /_psp/faults/{id}/release", (*Fault).Release)
	ctl("POST /_psp/pause", func(*http.Request) (int, any) {
		p.Pause.Set(true)
		return http.StatusOK, map[string]bool{"paused": true}
	})
	ctl("POST /_psp/resume", func(*http.Request) (int, any) {
		p.Pause.Set(false)
		return http.StatusOK, map[string]bool{"paused": false}
	})
	ctl("POST /_psp/clock/advance", func(r *http.Request) (int, any) {
		var req struct {
			By string `json:"by"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<12)).Decode(&req); err != nil {
			return ctlErr("clock body: %v", err)
		}
		d, err := time.ParseDuration(req.By)
		if err != nil || d < 0 {
			return ctlErr("clock advance %q: want a non-negative duration like \"25h\"", req.By)
		}
		p.Advance(d)
		return http.StatusOK, map[string]string{"now": p.Now().UTC().Format(time.RFC3339Nano)}
	})
	ctl("/_psp/", func(r *http.Request) (int, any) {
		return http.StatusNotFound, map[string]string{"error": "unknown control route " + r.Method + " " + r.URL.Path}
	})
}

// ControlHost is what the control API reads and moves on a running PSP.
type ControlHost struct {
	Enter func() bool // counts a request in; false once the PSP closes
	Leave func()
	// Info is what /_psp/info says of the PSP and its dialect (url,
	// credentials, API version); the control API adds paused and now.
	Info       func() map[string]any
	Truth      *GroundTruth
	Log        *DeliveryLog
	NewAccount func() string
	Faults     *Faults
	Pause      *Pauser
	Now        func() time.Time
	Advance    func(time.Duration)
}

type faultRequest struct {
	Kind FaultKind `json:"kind"`
	Match
	Delay string `json:"delay,omitempty"`
	Extra int    `json:"extra,omitempty"`
}

func ctlErr(format string, args ...any) (int, any) {
	return http.StatusBadRequest, map[string]string{"error": fmt.Sprintf(format, args...)}
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// jsonError is err as the control API's JSON error body.
func jsonError(err error) string {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return string(b)
}
