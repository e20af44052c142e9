package stripe

import (
	"testing"
	"unsafe"
)

// TestLoggedPathOwnsItsBytes: the call log keeps the route's own string for
// a path without an id, and a copy of any other, never the request line.
func TestLoggedPathOwnsItsBytes(t *testing.T) {
	line := "POST /v1/payment_intents HTTP/1.1"
	path := line[5:24]
	got := loggedPath("POST /v1/payment_intents", path)
	if got != path || unsafe.StringData(got) == unsafe.StringData(path) {
		t.Errorf("same path: %q shares the request line's bytes: %v", got, unsafe.StringData(got) == unsafe.StringData(path))
	}
	line = "POST /v1/payment_intents/pi_1/confirm HTTP/1.1"
	path = line[5:37]
	got = loggedPath("POST /v1/payment_intents/{id}/confirm", path)
	if got != path || unsafe.StringData(got) == unsafe.StringData(path) {
		t.Errorf("path with an id: %q shares the request line's bytes: %v", got, unsafe.StringData(got) == unsafe.StringData(path))
	}
}
