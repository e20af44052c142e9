// Package webhook is the reference stack's PSP webhook handler: it verifies
// the PSP's signature, keeps an inbox keyed by the PSP's event id, and moves
// the payment by compare-and-set in the same transaction, so a late or
// repeated event is harmless whichever order it arrives in (docs/SCENARIOS.md#C1).
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Path is where the PSP posts events.
const Path = "/webhooks/psp"

// BeforeCommit is the handler's failpoint: the event is applied inside its
// transaction, which has not committed.
const BeforeCommit = "before-webhook-commit"

func init() { failpoint.Register(BeforeCommit) }

// Stats are counters a spec reads.
type Stats struct {
	Received, BadSignature, Moved, Dropped, Stale atomic.Int64
}

// Snapshot returns Stats as numbers.
func (s *Stats) Snapshot() map[string]int64 {
	return map[string]int64{"received": s.Received.Load(), "bad_signature": s.BadSignature.Load(),
		"moved": s.Moved.Load(), "dropped": s.Dropped.Load(), "stale": s.Stale.Load()}
}

// Handler handles webhook deliveries.
type Handler struct {
	Secret    string
	Tolerance time.Duration
	Ledger    *ledger.Ledger
	Mutants   mutant.Set
	Log       *log.Logger
	Stats     Stats
}

// Verify checks a Stripe-Signature header ("t=<unix>,v1=<hex hmac>") over
// "<t>.<body>" with secret, and the timestamp's age against now.
func Verify(header string, body []byte, secret string, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if ts == "" || len(sigs) == 0 {
		return errors.New("Stripe-Signature: missing t= or v1=")
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("Stripe-Signature: bad timestamp %q", ts)
	}
	if tolerance > 0 {
		if age := now.Sub(time.Unix(t, 0)); age > tolerance || age < -tolerance {
			return fmt.Errorf("Stripe-Signature: timestamp %d is %v away from now", t, age)
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("Stripe-Signature: no v1 signature matches")
}

// Sign builds a Stripe-Signature header, for tests and harness-made events.
func Sign(body []byte, secret string, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

type event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object struct {
			ID           string            `json:"id"`
			LatestCharge string            `json:"latest_charge"`
			Metadata     map[string]string `json:"metadata"`
		} `json:"object"`
	} `json:"data"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.Stats.Received.Add(1)
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "webhook: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	// The PSP signs with its wall clock and Stripe's libraries check the age
	// against theirs: the story clock a harness advances is not that clock
	// (after an advance every fresh delivery would look stale).
	if err := Verify(r.Header.Get("Stripe-Signature"), body, h.Secret, time.Now(), h.Tolerance); err != nil {
		h.Stats.BadSignature.Add(1)
		http.Error(w, "webhook: "+err.Error(), http.StatusBadRequest)
		return
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
		http.Error(w, "webhook: event body: not an event object", http.StatusBadRequest)
		return
	}
	var to string
	switch ev.Type {
	case "payment_intent.succeeded":
		to = ledger.Succeeded
	case "payment_intent.payment_failed":
		to = ledger.Failed
	default:
		w.WriteHeader(http.StatusOK) // not ours to act on
		return
	}
	pid := ev.Data.Object.Metadata["payment_id"]
	if pid == "" {
		w.WriteHeader(http.StatusOK)
		return
	}
	m := ledger.Move{ID: pid, From: []string{ledger.Pending, ledger.Unknown}, To: to, Charge: ev.Data.Object.LatestCharge, InboxEvent: ev.ID}
	if h.Mutants.On(mutant.BlindWebhookUpdate) {
		m = ledger.Move{ID: pid, To: to, Charge: ev.Data.Object.LatestCharge, Blind: true, EventSuffix: ":" + ev.ID + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	}
	res, err := h.Ledger.ApplyInbox(context.WithoutCancel(r.Context()), m, func() error { return failpoint.Hit(BeforeCommit) })
	if err != nil {
		// The PSP retries a failed delivery; the inbox makes that safe.
		h.Log.Printf("event %s: %v", ev.ID, err)
		http.Error(w, "webhook: "+err.Error(), http.StatusInternalServerError)
		return
	}
	switch {
	case res.Dropped:
		h.Stats.Dropped.Add(1)
	case res.Moved:
		h.Stats.Moved.Add(1)
	default:
		h.Stats.Stale.Add(1)
	}
	w.WriteHeader(http.StatusOK)
}
