package faults

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// echoServer answers each line with "ok <line>".
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := io.WriteString(c, "ok "+line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(addr, msg string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func newLink(t *testing.T) (*Toxiproxy, *Link) {
	t.Helper()
	up := echoServer(t)
	tp, err := StartToxiproxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tp.Stop() })
	l, err := tp.Link("echo", up)
	if err != nil {
		t.Fatal(err)
	}
	return tp, l
}

func TestLoseReplyIsCountedAndUndone(t *testing.T) {
	_, l := newLink(t)
	if got, err := roundTrip(l.Addr(), "a", time.Second); err != nil || got != "ok a\n" {
		t.Fatalf("clean link: %q %v", got, err)
	}
	undo, err := l.LoseReply()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(l.Addr(), "b", 2*time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("lost reply: want EOF, got %v", err)
	}
	if l.Fired() != 1 {
		t.Fatalf("Fired = %d, want 1", l.Fired())
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(l.Addr(), "c", time.Second); err != nil || got != "ok c\n" {
		t.Fatalf("after undo: %q %v", got, err)
	}
}

func TestHoldReplyTimesOutAndUndoReleases(t *testing.T) {
	_, l := newLink(t)
	undo, err := l.HoldReply()
	if err != nil {
		t.Fatal(err)
	}
	_, err = roundTrip(l.Addr(), "a", 300*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("held reply: want a timeout, got %v", err)
	}
	if l.Fired() != 1 {
		t.Fatalf("Fired = %d, want 1", l.Fired())
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(l.Addr(), "b", time.Second); err != nil || got != "ok b\n" {
		t.Fatalf("after undo: %q %v", got, err)
	}
}

func TestEveryFaultCanBeUndone(t *testing.T) {
	_, l := newLink(t)
	faults := map[string]func() (Undo, error){
		"delay":     func() (Undo, error) { return l.Delay(Downstream, 50*time.Millisecond, 0) },
		"cut":       l.Cut,
		"reset":     func() (Undo, error) { return l.Reset(0) },
		"slowclose": func() (Undo, error) { return l.SlowClose(10 * time.Millisecond) },
		"bandwidth": func() (Undo, error) { return l.Bandwidth(Downstream, 1) },
		"disable":   l.Disable,
	}
	for name, apply := range faults {
		undo, err := apply()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "cut" || name == "reset" || name == "disable" {
			if _, err := roundTrip(l.Addr(), name, 300*time.Millisecond); err == nil {
				t.Errorf("%s: a round trip went through the fault", name)
			}
		}
		if err := undo(); err != nil {
			t.Fatalf("%s: undo: %v", name, err)
		}
		if got, err := roundTrip(l.Addr(), name, 2*time.Second); err != nil || got != "ok "+name+"\n" {
			t.Errorf("%s: after undo: %q %v", name, got, err)
		}
	}
}

func TestDelayIsApplied(t *testing.T) {
	_, l := newLink(t)
	undo, err := l.Delay(Downstream, 200*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer undo()
	// The reply cannot beat the latency: a deadline shorter than it must expire.
	if _, err := roundTrip(l.Addr(), "a", 100*time.Millisecond); err == nil {
		t.Fatal("a reply arrived before the delay")
	}
}

// toxiproxy-cli speaks this API: the Go client sees the same links and can add
// a toxic to a live run.
func TestAPIServesToxiproxyClients(t *testing.T) {
	tp, l := newLink(t)
	c := toxiclient.NewClient("http://" + tp.APIAddr())
	proxies, err := c.Proxies()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := proxies["echo"]
	if !ok || p.Listen != l.Addr() {
		t.Fatalf("API lists %v, want echo on %s", proxies, l.Addr())
	}
	if _, err := p.AddToxic("cli", "drop_reply", "downstream", 1, toxiclient.Attributes{"bytes": 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(l.Addr(), "x", 2*time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("toxic added through the API: want EOF, got %v", err)
	}
}

func TestProcessFaults(t *testing.T) {
	p, err := StartProcess("sleeper", exec.Command("sleep", "60"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	if err := p.Pause(); err != nil {
		t.Fatal(err)
	}
	if !p.Paused() {
		t.Fatal("SIGSTOPped process not seen as paused")
	}
	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	if p.Paused() {
		t.Fatal("resumed process still paused")
	}
	first := p.PID()
	if err := p.Restart(); err == nil || !strings.Contains(err.Error(), "still runs") {
		t.Fatalf("restart of a live process: %v", err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || p.Fired() != 2 {
		t.Fatalf("after pause and kill: exited=%v fired=%d, want 2", p.Exited(), p.Fired())
	}
	if err := p.Restart(); err != nil {
		t.Fatal(err)
	}
	if p.PID() == first || p.Exited() {
		t.Fatalf("restart: pid %d (was %d), exited=%v", p.PID(), first, p.Exited())
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() {
		t.Fatal("stopped process still running")
	}
}

// TestUndoneCountingFaultsLeaveNoCounter: a link keeps the count of a
// counting fault only while it is armed; undone, its count stays in Fired
// and nothing of it on the link (a chaos hour arms thousands on one link).
func TestUndoneCountingFaultsLeaveNoCounter(t *testing.T) {
	_, l := newLink(t)
	for i := range 3 {
		undo, err := l.LoseReply()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := roundTrip(l.Addr(), "x", 2*time.Second); !errors.Is(err, io.EOF) {
			t.Fatalf("lost reply %d: want EOF, got %v", i, err)
		}
		if err := undo(); err != nil {
			t.Fatal(err)
		}
		hold, err := l.HoldReply()
		if err != nil {
			t.Fatal(err)
		}
		if err := hold(); err != nil {
			t.Fatal(err)
		}
	}
	l.mu.Lock()
	left := len(l.counters)
	l.mu.Unlock()
	if left != 0 || l.Fired() != 3 {
		t.Fatalf("%d counters left, Fired %d: want none, and the 3 lost replies counted", left, l.Fired())
	}
}
