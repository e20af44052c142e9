package pspfront

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The exchanges' bodies live on disk and come back exactly as sent and
// answered, in order; the file is gone once the front is closed.
func TestExchangesComeBackFromDisk(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		_, _ = w.Write([]byte(`{"id":"pi_` + r.PostForm.Get("n") + `","latest_charge":"ch_` + r.PostForm.Get("n") + `"}`))
	}))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1", "22", "333"} {
		if code, err := post(t, f.URL(), "key-"+n, "n="+n+"&metadata[order_id]=ord-"+n); err != nil || code != 200 {
			t.Fatalf("post %s: %d %v", n, code, err)
		}
	}
	xs := f.Exchanges()
	if len(xs) != 3 || f.Len() != 3 {
		t.Fatalf("%d exchanges (Len %d), want 3", len(xs), f.Len())
	}
	for i, n := range []string{"1", "22", "333"} {
		x := xs[i]
		if x.Key != "key-"+n || x.Status != 200 || !strings.Contains(x.Body, "metadata[order_id]=ord-"+n+"\n") ||
			x.RespBody != `{"id":"pi_`+n+`","latest_charge":"ch_`+n+`"}` {
			t.Fatalf("exchange %d: %+v", i, x)
		}
	}
	if f.disk.Size() == 0 {
		t.Fatal("nothing went to disk: the bodies are still in memory")
	}
	for _, k := range f.log {
		if k.inMem || len(f.inMem) > 0 {
			t.Fatalf("an exchange kept its bodies in memory: %+v", f.inMem)
		}
	}
	if err := f.ReadError(); err != nil {
		t.Fatalf("ReadError %v after good reads", err)
	}
	path := f.disk.Path()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s left behind after Close: %v", path, err)
	}
}

// An exchange whose bodies cannot be read back comes back with them empty,
// never another's, and ReadError names it once (the check is then Errored).
func TestExchangeUnreadableIsAReadError(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"pi_1"}`))
	}))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := post(t, f.URL(), "k", "amount=1000"); err != nil {
		t.Fatal(err)
	}
	if err := f.disk.Close(); err != nil {
		t.Fatal(err)
	}
	xs := f.Exchanges()
	if len(xs) != 1 || xs[0].Key != "k" || xs[0].Body != "" || xs[0].RespBody != "" {
		t.Fatalf("exchanges %+v, want the one with its bodies empty", xs)
	}
	err = f.ReadError()
	if !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "exchange 0 (POST /v1/payment_intents)") {
		t.Fatalf("ReadError %v, want exchange 0's closed store", err)
	}
	if err := f.ReadError(); err != nil {
		t.Fatalf("ReadError %v on the second ask, want it forgotten", err)
	}
}
