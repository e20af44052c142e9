package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hookFlaws are the webhook handler's guards, each switched off by one
// --hook-flaw (none and unique-payment are correct).
var hookFlaws = map[string]string{
	"none":              "verifies the signature and its age, dedups by event id durably, credits on payment_intent.succeeded",
	"unique-payment":    "correct another way: at most one credit per payment and one debit per refund id, whatever the event ids",
	"no-dedup":          "credits on every delivery",
	"memory-dedup":      "keeps the event ids it saw in memory only (lost on restart)",
	"check-then-insert": "checks the inbox, then inserts, without atomicity",
	"ack-first":         "answers 200, then commits the credit a moment later",
	"two-types":         "dedups by event id but credits on payment_intent.succeeded and charge.succeeded",
	"no-signature":      "never checks the signature",
	"no-tolerance":      "checks the HMAC but not the timestamp's age",
	"unknown-dropped":   "answers 200 and drops an event of a payment it has not finished creating",
	"created-first":     "assumes Stripe's order: records payment_intent.created and answers 200 to, and drops, a payment_intent.succeeded whose created it has not seen",
}

// creditRow is one line of the service's credits file: an inbox entry and
// the credit (or refund's debit) it caused, written together.
type creditRow struct {
	EventID string `json:"event_id"`
	Type    string `json:"type"`
	PI      string `json:"psp_payment_id"`
	Ref     string `json:"ref,omitempty"` // the refund's id, for debits
	Amount  int64  `json:"amount"`        // 0: an inbox entry with no money
}

type hooks struct {
	s      *server
	flaw   string
	secret string
	path   string
	mu     sync.Mutex
	seen   map[string]bool // memory-dedup
	// shape of GET /credits: a real receiver's list need not be "data".
	shape string
}

func newHooks(s *server, flaw, dir string) *hooks {
	if _, ok := hookFlaws[flaw]; !ok {
		log.Fatalf("unknown --hook-flaw %q", flaw)
	}
	return &hooks{s: s, flaw: flaw, secret: os.Getenv("PSP_WEBHOOK_SECRET"), path: dir + "/credits.jsonl", seen: map[string]bool{}}
}

func (h *hooks) verify(r *http.Request, body []byte) error {
	if h.flaw == "no-signature" {
		return nil
	}
	var ts string
	var sigs []string
	for _, part := range strings.Split(r.Header.Get("Stripe-Signature"), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("missing or malformed Stripe-Signature")
	}
	if age := time.Since(time.Unix(t, 0)); h.flaw != "no-tolerance" && (age > 300*time.Second || age < -300*time.Second) {
		return errors.New("signature timestamp outside the tolerance")
	}
	m := hmac.New(sha256.New, []byte(h.secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

type hookEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object struct {
			ID            string            `json:"id"`
			Amount        int64             `json:"amount"`
			PaymentIntent string            `json:"payment_intent"`
			Metadata      map[string]string `json:"metadata"`
		} `json:"object"`
	} `json:"data"`
}

func (h *hooks) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	if err := h.verify(r, body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var ev hookEvent
	if json.Unmarshal(body, &ev) != nil || ev.ID == "" {
		http.Error(w, "not an event", 400)
		return
	}
	o := ev.Data.Object
	row := creditRow{EventID: ev.ID, Type: ev.Type}
	switch {
	case ev.Type == "payment_intent.succeeded", ev.Type == "charge.succeeded" && h.flaw == "two-types":
		row.PI, row.Amount = o.ID, o.Amount
		if ev.Type == "charge.succeeded" {
			row.PI = o.PaymentIntent
		}
		if h.flaw == "created-first" && !h.sawCreated(row.PI) {
			w.WriteHeader(200) // "created comes first": the credit is lost
			return
		}
		if h.flaw == "unknown-dropped" {
			if rec, _ := h.s.store.find(o.Metadata["payment_id"]); rec == nil || rec.State != "done" {
				w.WriteHeader(200) // "not ours yet": the credit is lost
				return
			}
		}
	case ev.Type == "payment_intent.created" && h.flaw == "created-first":
		row.PI = o.ID // an inbox entry with no money: "seen created"
	case ev.Type == "refund.created":
		row.PI, row.Ref, row.Amount = o.PaymentIntent, o.ID, -o.Amount
	default:
		w.WriteHeader(200)
		return
	}
	if h.flaw == "ack-first" {
		// The credit is queued for later; the PSP hears 200 now.
		go func() { time.Sleep(400 * time.Millisecond); _ = h.apply(row) }()
		w.WriteHeader(200)
		return
	}
	if err := h.apply(row); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.WriteHeader(200)
}

// apply writes the row unless the inbox (or, for unique-payment, the
// payment's own row) says it was applied already.
func (h *hooks) apply(row creditRow) error {
	switch h.flaw {
	case "memory-dedup":
		h.mu.Lock()
		dup := h.seen[row.EventID]
		h.seen[row.EventID] = true
		h.mu.Unlock()
		if dup {
			return nil
		}
		return h.locked(func(rows []creditRow) (bool, error) { return true, nil }, row)
	case "check-then-insert":
		var dup bool
		if err := h.locked(func(rows []creditRow) (bool, error) { dup = h.applied(rows, row); return false, nil }, row); err != nil || dup {
			return err
		}
		time.Sleep(h.s.hold)
		return h.locked(func([]creditRow) (bool, error) { return true, nil }, row)
	case "no-dedup":
		return h.locked(func([]creditRow) (bool, error) { return true, nil }, row)
	}
	return h.locked(func(rows []creditRow) (bool, error) { return !h.applied(rows, row), nil }, row)
}

// sawCreated says whether payment_intent.created of pi was recorded.
func (h *hooks) sawCreated(pi string) bool {
	seen := false
	_ = h.locked(func(rows []creditRow) (bool, error) {
		seen = slices.ContainsFunc(rows, func(x creditRow) bool { return x.PI == pi && x.Type == "payment_intent.created" })
		return false, nil
	}, creditRow{})
	return seen
}

func (h *hooks) applied(rows []creditRow, row creditRow) bool {
	for _, x := range rows {
		switch {
		case h.flaw == "unique-payment" && row.Amount > 0 && x.PI == row.PI && x.Amount > 0:
			return true
		case h.flaw == "unique-payment" && row.Amount < 0 && x.Ref == row.Ref:
			return true
		case h.flaw != "unique-payment" && x.EventID == row.EventID:
			return true
		}
	}
	return false
}

// locked reads the credits file under an exclusive flock (the instances
// share it, as they would a database) and appends row when decide says so.
func (h *hooks) locked(decide func([]creditRow) (bool, error), row creditRow) error {
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	rows := readRows(f)
	write, err := decide(rows)
	if err != nil || !write {
		return err
	}
	b, _ := json.Marshal(row)
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

func readRows(r io.Reader) []creditRow {
	var rows []creditRow
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var x creditRow
		if json.Unmarshal(sc.Bytes(), &x) == nil {
			rows = append(rows, x)
		}
	}
	return rows
}

// credits answers GET /credits?psp_payment_id=X with {"data": [rows of X]}
// (or {"count": n, "entries": [...]} with --credits-shape entries).
func (h *hooks) credits(w http.ResponseWriter, r *http.Request) {
	want := r.URL.Query().Get("psp_payment_id")
	out := []creditRow{}
	if f, err := os.Open(h.path); err == nil {
		for _, x := range readRows(f) {
			if x.PI == want && x.Amount != 0 {
				out = append(out, x)
			}
		}
		f.Close()
	}
	if h.shape == "entries" {
		writeJSON(w, 200, map[string]any{"count": len(out), "entries": out})
		return
	}
	writeJSON(w, 200, map[string]any{"data": out})
}
