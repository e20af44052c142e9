package pspfront

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The exchanges live on disk, in chunks of spill.ChunkLen, and come back
// exactly as sent and answered, in order; the file is gone once the front
// is closed, and a read after Close is a read error.
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
	const n = spill.ChunkLen + 3
	for i := range n {
		if code, err := post(t, f.URL(), fmt.Sprintf("key-%d", i), fmt.Sprintf("n=%d&metadata[order_id]=ord-%d", i, i)); err != nil || code != 200 {
			t.Fatalf("post %d: %d %v", i, code, err)
		}
	}
	xs := f.Exchanges()
	if len(xs) != n || f.Len() != n {
		t.Fatalf("%d exchanges (Len %d), want %d", len(xs), f.Len(), n)
	}
	for i, x := range xs {
		if x.Method != "POST" || x.Path != "/v1/payment_intents" || x.Key != fmt.Sprintf("key-%d", i) || x.Status != 200 ||
			!strings.Contains(x.Body, fmt.Sprintf("metadata[order_id]=ord-%d\n", i)) ||
			x.RespBody != fmt.Sprintf(`{"id":"pi_%d","latest_charge":"ch_%d"}`, i, i) {
			t.Fatalf("exchange %d: %+v", i, x)
		}
	}
	if f.disk.Size() == 0 {
		t.Fatal("nothing went to disk: the exchanges are still in memory")
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
	if xs := f.Exchanges(); len(xs) != n {
		t.Fatalf("%d exchanges after Close, want %d in their places", len(xs), n)
	}
	if err := f.ReadError(); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("ReadError %v after a read past Close, want the closed store", err)
	}
}

// Exchanges whose chunk cannot be read back come back empty at their
// positions, never another's, the ones after them where they were, and
// ReadError names the failure once (the check is then Errored).
func TestExchangeUnreadableIsAReadError(t *testing.T) {
	f, err := Start("http://127.0.0.1:1", "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = spill.ChunkLen + 2
	for i := range n {
		f.keep(Exchange{Method: "POST", Path: "/v1/payment_intents", Key: fmt.Sprintf("k%d", i), Body: "amount=1\n", Status: 200})
	}
	// The store goes, the front stays open: only the chunk on disk is lost.
	if err := f.disk.Close(); err != nil {
		t.Fatal(err)
	}
	xs := f.Exchanges()
	if len(xs) != n {
		t.Fatalf("%d exchanges, want %d", len(xs), n)
	}
	for i, x := range xs {
		lost := i < spill.ChunkLen
		if lost && x != (Exchange{}) || !lost && x.Key != fmt.Sprintf("k%d", i) {
			t.Fatalf("exchange %d: %+v, want it %s", i, x, map[bool]string{true: "empty", false: "whole"}[lost])
		}
	}
	err = f.ReadError()
	if !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), fmt.Sprintf("%d of its %d exchanges", spill.ChunkLen, n)) {
		t.Fatalf("ReadError %v, want the first chunk's closed store", err)
	}
	if err := f.ReadError(); err != nil {
		t.Fatalf("ReadError %v on the second ask, want it forgotten", err)
	}
}

// TestChunksTheDiskRefusedStayInMemory: when the store cannot take a chunk
// its exchanges stay in memory and come back whole, with no read error.
func TestChunksTheDiskRefusedStayInMemory(t *testing.T) {
	f, err := Start("http://127.0.0.1:1", "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.disk.Close(); err != nil {
		t.Fatal(err)
	}
	const n = 2*spill.ChunkLen + 1
	for i := range n {
		f.keep(Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_%d", i), Status: 200, RespBody: `{"id":"pi_7"}`})
	}
	if f.log.WriteErr() == nil {
		t.Fatal("a closed store took a chunk")
	}
	xs := f.Exchanges()
	if len(xs) != n {
		t.Fatalf("%d exchanges, want %d", len(xs), n)
	}
	for i, x := range xs {
		if x.Path != fmt.Sprintf("/v1/payment_intents/pi_%d", i) || x.RespBody != `{"id":"pi_7"}` || x.Status != 200 {
			t.Fatalf("exchange %d: %+v, want it whole from memory", i, x)
		}
	}
	if err := f.ReadError(); err != nil {
		t.Fatalf("ReadError %v for exchanges kept in memory", err)
	}
}
