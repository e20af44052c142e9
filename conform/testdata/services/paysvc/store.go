package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

type record struct {
	Scope         string    `json:"scope"`
	Fingerprint   string    `json:"fingerprint"`
	State         string    `json:"state"` // in_progress, unknown, done, void (resolve.go)
	Owner         string    `json:"owner"`
	LeaseUntil    time.Time `json:"lease_until"`
	ExpiresAt     time.Time `json:"expires_at"`
	PaymentID     string    `json:"payment_id"`
	PSPKey        string    `json:"psp_key"`
	Amount        int64     `json:"amount"`
	Currency      string    `json:"currency"`
	PaymentMethod string    `json:"payment_method"`
	Status        int       `json:"status,omitempty"`
	Body          string    `json:"body,omitempty"`
	Refunded      bool      `json:"refunded,omitempty"`
	OrderID       string    `json:"order_id,omitempty"`
	// justDone: this complete call made the record done (not stored).
	justDone bool
}

func (r *record) status() string {
	switch r.State {
	case "done":
		var b struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal([]byte(r.Body), &b)
		return b.Status
	default:
		return "processing"
	}
}

type store interface {
	// claim inserts fresh unless a live record holds the scope; it returns
	// the record that holds the scope and whether fresh was inserted.
	claim(fresh *record, now time.Time) (*record, bool, error)
	get(scope string, now time.Time) (*record, error)
	put(r *record) error
	takeover(scope, me string, lease time.Time, prevOwner string) (*record, error)
	complete(scope, me string, status int, body string) (*record, error)
	markUnknown(scope, me string) error
	remove(scope, me string) error
	find(paymentID string) (*record, error)
	findKey(key string) (*record, error)
	markRefunded(paymentID string) error
}

// table is the whole key store; both stores mutate it under a lock.
type table map[string]*record

func (t table) claim(fresh *record, now time.Time) (*record, bool) {
	if r, ok := t[fresh.Scope]; ok && !r.ExpiresAt.Before(now) {
		return r, false
	}
	t[fresh.Scope] = fresh
	return fresh, true
}

func (t table) takeover(scope, me string, lease time.Time, prev string) *record {
	r, ok := t[scope]
	if !ok || r.Owner != prev || r.State == "done" {
		return nil
	}
	r.Owner, r.LeaseUntil, r.State = me, lease, "in_progress"
	c := *r
	return &c
}

func (t table) complete(scope, me string, status int, body string) *record {
	r, ok := t[scope]
	if !ok {
		return &record{State: "done", Status: status, Body: body}
	}
	c := *r
	if r.Owner == me && r.State != "done" {
		r.State, r.Status, r.Body = "done", status, body
		c = *r
		c.justDone = true
	}
	return &c
}

func (t table) markUnknown(scope, me string) {
	if r, ok := t[scope]; ok && r.Owner == me && r.State == "in_progress" {
		r.State = "unknown"
	}
}

func (t table) find(id string) *record {
	for _, r := range t {
		if r.PaymentID == id {
			c := *r
			return &c
		}
	}
	return nil
}

type memStore struct {
	mu sync.Mutex
	t  table
}

func newMemStore() *memStore { return &memStore{t: table{}} }

func (m *memStore) do(f func(t table) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return f(m.t)
}

// fileStore keeps the table in one JSON file, locked with flock across
// processes (replicas share it) and fsynced before an answer depends on it.
type fileStore struct{ path string }

func (f *fileStore) do(fn func(t table) error) error {
	lock, err := os.OpenFile(f.path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	t := table{}
	b, err := os.ReadFile(f.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
	}
	before := string(b)
	if err := fn(t); err != nil {
		return err
	}
	out, _ := json.Marshal(t)
	if string(out) == before {
		return nil
	}
	tmp := f.path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := w.Write(out); err != nil {
		w.Close()
		return err
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return err
	}
	w.Close()
	if err := os.Rename(tmp, f.path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(f.path))
	if err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

type doer interface {
	do(func(t table) error) error
}

func claimWith(d doer, fresh *record, now time.Time) (rec *record, ok bool, err error) {
	err = d.do(func(t table) error {
		r, claimed := t.claim(fresh, now)
		c := *r
		rec, ok = &c, claimed
		return nil
	})
	return
}

func (m *memStore) claim(fr *record, now time.Time) (*record, bool, error) {
	return claimWith(m, fr, now)
}
func (f *fileStore) claim(fr *record, now time.Time) (*record, bool, error) {
	return claimWith(f, fr, now)
}

func getWith(d doer, scope string, now time.Time) (rec *record, err error) {
	err = d.do(func(t table) error {
		if r, ok := t[scope]; ok && !r.ExpiresAt.Before(now) {
			c := *r
			rec = &c
		}
		return nil
	})
	return
}

func (m *memStore) get(s string, now time.Time) (*record, error)  { return getWith(m, s, now) }
func (f *fileStore) get(s string, now time.Time) (*record, error) { return getWith(f, s, now) }

func putWith(d doer, r *record) error {
	return d.do(func(t table) error { c := *r; t[r.Scope] = &c; return nil })
}

func (m *memStore) put(r *record) error  { return putWith(m, r) }
func (f *fileStore) put(r *record) error { return putWith(f, r) }

func takeoverWith(d doer, scope, me string, lease time.Time, prev string) (rec *record, err error) {
	err = d.do(func(t table) error { rec = t.takeover(scope, me, lease, prev); return nil })
	return
}

func (m *memStore) takeover(s, me string, l time.Time, p string) (*record, error) {
	return takeoverWith(m, s, me, l, p)
}
func (f *fileStore) takeover(s, me string, l time.Time, p string) (*record, error) {
	return takeoverWith(f, s, me, l, p)
}

func completeWith(d doer, scope, me string, status int, body string) (rec *record, err error) {
	err = d.do(func(t table) error { rec = t.complete(scope, me, status, body); return nil })
	return
}

func (m *memStore) complete(s, me string, st int, b string) (*record, error) {
	return completeWith(m, s, me, st, b)
}
func (f *fileStore) complete(s, me string, st int, b string) (*record, error) {
	return completeWith(f, s, me, st, b)
}

func (m *memStore) markUnknown(s, me string) error {
	return m.do(func(t table) error { t.markUnknown(s, me); return nil })
}
func (f *fileStore) markUnknown(s, me string) error {
	return f.do(func(t table) error { t.markUnknown(s, me); return nil })
}

func removeWith(d doer, scope, me string) error {
	return d.do(func(t table) error {
		if r, ok := t[scope]; ok && r.Owner == me {
			delete(t, scope)
		}
		return nil
	})
}

func (m *memStore) remove(s, me string) error  { return removeWith(m, s, me) }
func (f *fileStore) remove(s, me string) error { return removeWith(f, s, me) }

func findWith(d doer, id string) (rec *record, err error) {
	err = d.do(func(t table) error { rec = t.find(id); return nil })
	return
}

func (m *memStore) find(id string) (*record, error)  { return findWith(m, id) }
func (f *fileStore) find(id string) (*record, error) { return findWith(f, id) }

func markRefundedWith(d doer, id string) error {
	return d.do(func(t table) error {
		for _, r := range t {
			if r.PaymentID == id {
				r.Refunded = true
			}
		}
		return nil
	})
}

func (m *memStore) markRefunded(id string) error  { return markRefundedWith(m, id) }
func (f *fileStore) markRefunded(id string) error { return markRefundedWith(f, id) }
