package faults

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/idemcheck/idemcheck/internal/freeport"
)

// toxiproxyServer starts a real toxiproxy-server process (built from the
// module idemcheck links) on a loopback port and returns its API URL.
func toxiproxyServer(t *testing.T, metrics bool) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir, "github.com/Shopify/toxiproxy/v2/cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("build toxiproxy-server: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	args := []string{"-host", "127.0.0.1", "-port", fmt.Sprint(port)}
	if metrics {
		args = append(args, "-proxy-metrics")
	}
	cmd := exec.Command(filepath.Join(dir, "server"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	api := fmt.Sprintf("http://127.0.0.1:%d", port)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, err := http.Get(api + "/version"); err == nil {
			r.Body.Close()
			return api
		}
		if time.Now().After(end) {
			t.Fatal("toxiproxy-server did not answer")
		}
	}
}

func proxiesOn(t *testing.T, api string) []string {
	t.Helper()
	ps, err := toxiclient.NewClient(api).Proxies()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := range ps {
		out = append(out, n)
	}
	return out
}

// TestRemoteLinkLosesRepliesAndLeavesNothing: a link on the user's own
// toxiproxy-server loses a reply (counted from the server's metrics), is
// cut, disabled and healed, and Stop removes its proxy, not the user's.
func TestRemoteLinkLosesRepliesAndLeavesNothing(t *testing.T) {
	api := toxiproxyServer(t, true)
	if _, err := toxiclient.NewClient(api).CreateProxy("users-own", "127.0.0.1:0", "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	rt, err := DialToxiproxy(api)
	if err != nil {
		t.Fatal(err)
	}
	if b := rt.Blind(); b != "" {
		t.Fatalf("a server with -proxy-metrics is blind: %s", b)
	}
	l, notes, err := rt.Link("echo", "", echoServer(t))
	if err != nil || len(notes) != 0 {
		t.Fatalf("link: %v %v", err, notes)
	}
	if got, err := roundTrip(l.Addr(), "a", time.Second); err != nil || got != "ok a\n" {
		t.Fatalf("clean link: %q %v", got, err)
	}
	if n := l.Fired(); n != 0 {
		t.Fatalf("Fired = %d before any fault, want 0", n)
	}
	undo, err := l.LoseReply()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(l.Addr(), "b", 2*time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("lost reply: want EOF, got %v", err)
	}
	// The server counts a connection's bytes once it has closed it, which
	// can come after the client's EOF: what a fault caught is read after
	// its undo, which waits for that count, as the checks read it.
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if n := l.Fired(); n != int64(len("ok b\n")) {
		t.Fatalf("Fired = %d after the undo, want the %d reply bytes lost", n, len("ok b\n"))
	}
	if got, err := roundTrip(l.Addr(), "c", time.Second); err != nil || got != "ok c\n" {
		t.Fatalf("after undo: %q %v", got, err)
	}
	for name, apply := range map[string]func() (Undo, error){"cut": l.Cut, "disable": l.Disable, "hold": l.HoldReply} {
		before := l.Fired()
		undo, err := apply()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := roundTrip(l.Addr(), name, 300*time.Millisecond); err == nil {
			t.Errorf("%s: a round trip went through the fault", name)
		}
		if err := undo(); err != nil {
			t.Fatalf("undo %s: %v", name, err)
		}
		if name == "hold" && l.Fired() <= before {
			t.Errorf("a held reply was not counted: Fired %d after the hold, %d before it", l.Fired(), before)
		}
		if got, err := roundTrip(l.Addr(), name, time.Second); err != nil || got != "ok "+name+"\n" {
			t.Fatalf("after %s undone: %q %v", name, got, err)
		}
	}
	if _, err := l.Delay(Downstream, time.Second, 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Heal(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got, err := roundTrip(l.Addr(), "d", 2*time.Second); err != nil || got != "ok d\n" || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("after heal: %q %v in %s", got, err, time.Since(start))
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	if ps := proxiesOn(t, api); len(ps) != 1 || ps[0] != "users-own" {
		t.Fatalf("proxies left on the server: %v, want only the user's own", ps)
	}
}

// TestRemoteLinkWithoutMetricsIsBlind: a server without -proxy-metrics can
// lose a reply but cannot show it; Blind says so.
func TestRemoteLinkWithoutMetricsIsBlind(t *testing.T) {
	api := toxiproxyServer(t, false)
	rt, err := DialToxiproxy(api)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rt.Stop() }()
	if b := rt.Blind(); !strings.Contains(b, "-proxy-metrics") {
		t.Fatalf("Blind = %q, want it to name -proxy-metrics", b)
	}
}

// TestLeftoverProxiesAreSwept: a proxy another run left on a link's listen
// address is removed before the link is made, and the run says so; the
// sweeper removes a run's proxies when the run's process dies.
func TestLeftoverProxiesAreSwept(t *testing.T) {
	api := toxiproxyServer(t, true)
	// Below the ephemeral range: a port taken from :0 and closed could be
	// the next port a parallel test's server takes before the proxy does.
	listen, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := toxiclient.NewClient(api).CreateProxy(ProxyPrefix+"1-dead00-other", listen, "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	rt, err := DialToxiproxy(api)
	if err != nil {
		t.Fatal(err)
	}
	l, notes, err := rt.Link("db", listen, echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], ProxyPrefix+"1-dead00-other") {
		t.Fatalf("notes %v, want one naming the leftover proxy", notes)
	}
	if l.Addr() != listen {
		t.Fatalf("link on %s, want %s", l.Addr(), listen)
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	if ps := proxiesOn(t, api); len(ps) != 0 {
		t.Fatalf("proxies left: %v", ps)
	}
}

// TestSIGKILLedRunsProxiesAreSwept: a run (this test binary, re-executed)
// makes a link on the server and is SIGKILLed; its sweeper removes the
// proxy, and leaves the user's own.
func TestSIGKILLedRunsProxiesAreSwept(t *testing.T) {
	api := toxiproxyServer(t, true)
	if _, err := toxiclient.NewClient(api).CreateProxy("users-own", "127.0.0.1:0", "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(os.Args[0], "-test.run=^TestRemoteRunForSIGKILL$")
	run.Env = append(os.Environ(), "IDEMCHECK_TEST_REMOTE_RUN="+api, "IDEMCHECK_TEST_REMOTE_DIR="+t.TempDir())
	out, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "linked ") {
		t.Fatalf("the run did not make its link: %q", line)
	}
	name := strings.TrimSpace(strings.TrimPrefix(line, "linked "))
	if ps := proxiesOn(t, api); !slices.Contains(ps, name) {
		t.Fatalf("proxy %s not on the server: %v", name, ps)
	}
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = run.Wait()
	// The sweeper polls its parent three times a second.
	var ps []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ps = proxiesOn(t, api); len(ps) == 1 {
			break
		}
	}
	if len(ps) != 1 || ps[0] != "users-own" {
		t.Fatalf("proxies after the SIGKILL: %v, want only the user's own", ps)
	}
}

// TestRemoteRunForSIGKILL is the run TestSIGKILLedRunsProxiesAreSwept kills.
func TestRemoteRunForSIGKILL(t *testing.T) {
	api := os.Getenv("IDEMCHECK_TEST_REMOTE_RUN")
	if api == "" {
		t.Skip("run only as TestSIGKILLedRunsProxiesAreSwept's child")
	}
	rt, err := DialToxiproxy(api)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.StartSweeper(os.Getenv("IDEMCHECK_TEST_REMOTE_DIR")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rt.Link("db", "", "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("linked", rt.Made()[0])
	time.Sleep(time.Minute)
}
