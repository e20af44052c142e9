package fakepsp

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"
)

// The rule itself, without binding anything beyond loopback (the project's
// tests listen on 127.0.0.1 only).
func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true}, {"localhost:12111", false, true}, {"[::1]:0", false, true}, {"127.0.0.2:1", false, true},
		{"0.0.0.0:12111", false, false}, {":12111", false, false}, {"10.0.0.5:12111", false, false}, {"fakepsp:12111", false, false},
		{"0.0.0.0:12111", true, true}, {":12111", true, true}, {"fakepsp:12111", true, true},
		{"nonsense", true, false},
	} {
		err := CheckListen(c.addr, c.remote)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %v) = %v, want ok=%v", c.addr, c.remote, err, c.ok)
		}
		if loop := RemoteWarning(c.addr) == ""; c.ok && loop != loopbackAddr(c.addr) {
			t.Errorf("RemoteWarning(%q) given for a loopback address, or missing for a remote one", c.addr)
		}
	}
	if _, err := Start(Config{Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Fatalf("Start on 0.0.0.0 without AllowRemote: %v", err)
	}
}

func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && IsLoopback(host)
}

func TestStandaloneRemoteNeedsOptIn(t *testing.T) {
	var errOut bytes.Buffer
	if c := RunStandalone(context.Background(), []string{"--listen", "0.0.0.0:0"}, io.Discard, &errOut); c != 2 ||
		!strings.Contains(errOut.String(), "--listen") || !strings.Contains(errOut.String(), "--allow-remote") {
		t.Fatalf("remote without opt-in: exit %d, stderr %q; want 2 naming --listen and --allow-remote", c, errOut.String())
	}
	// With the opt-in the warning comes before the listen. 192.0.2.1 is
	// TEST-NET-1, never a local address: the bind fails (exit 1) and nothing
	// listens beyond loopback, but the warning must already be out.
	errOut.Reset()
	c := RunStandalone(context.Background(), []string{"--listen", "192.0.2.1:0", "--allow-remote"}, io.Discard, &errOut)
	if c != 1 || !strings.Contains(errOut.String(), "WARNING: fakepsp listens on 192.0.2.1:0, beyond loopback") {
		t.Fatalf("remote with opt-in: exit %d, stderr %q; want the warning, then the bind error", c, errOut.String())
	}
}
