package scenario

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// A front that lost an exchange's bodies is a read error of the check, as
// a PSP's unreadable ground truth is: RunCheck makes it Errored.
func TestFrontReadErrorIsTheChecksReadError(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer up.Close()
	f, err := pspfront.Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(f.URL()+"/v1/payment_intents", "application/x-www-form-urlencoded", strings.NewReader("amount=1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e := &Env{Front: f}
	if err := takeReadError(e); err != nil {
		t.Fatalf("read error %v before any failure", err)
	}
	_ = f.Close() // its bodies on disk are gone with it
	_ = f.Exchanges()
	err = takeReadError(e)
	if err == nil || !strings.Contains(err.Error(), "the recording front's exchanges") {
		t.Fatalf("read error %v, want the front's", err)
	}
}
