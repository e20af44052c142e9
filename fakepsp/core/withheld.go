package core

import (
	"context"
	"net/http"
)

// Withheld waits while a HoldReply fault holds the answer, and says
// whether the answer must be lost instead of written: LoseReply fired, or
// the client or the PSP went away while it was held.
func (a AfterEffect) Withheld(client, psp context.Context) (lose bool) {
	if a.Hold != nil {
		select {
		case <-a.Hold.Released():
		case <-client.Done():
			return true
		case <-psp.Done():
			return true
		}
	}
	return a.Lose
}

// DropConnection closes the client's connection without an answer: the
// client sees EOF, whatever the PSP did.
func DropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
		return // a hijack error means the connection is already gone
	}
	panic(http.ErrAbortHandler) // net/http closes the connection without logging
}
