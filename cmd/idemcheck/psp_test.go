package main

import (
	"bytes"
	"strings"
	"testing"
)

// `idemcheck psp` refuses a non-loopback --listen without --allow-remote,
// naming both flags, and its help describes the opt-in.
func TestPSPRemoteListenNeedsOptIn(t *testing.T) {
	var out, errb bytes.Buffer
	if got := dispatch([]string{"psp", "--listen", "0.0.0.0:12111"}, &out, &errb); got != 2 ||
		!strings.Contains(errb.String(), "--listen") || !strings.Contains(errb.String(), "--allow-remote") {
		t.Fatalf("psp --listen 0.0.0.0:12111: exit %d, stderr %q", got, errb.String())
	}
	errb.Reset()
	if got := dispatch([]string{"psp", "--help"}, &out, &errb); got != 0 || !strings.Contains(out.String()+errb.String(), "-allow-remote") {
		t.Fatalf("psp --help: exit %d, output %q", got, out.String()+errb.String())
	}
}
