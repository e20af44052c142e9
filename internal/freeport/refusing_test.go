//go:build unix

package freeport

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// The address refuses connections, and no server can take its port while
// it is held, whether it asks for that port or for any (:0) many times.
func TestRefusingRefusesAndCannotBeTaken(t *testing.T) {
	addr, release, err := Refusing()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("a server took the refusing port %s", addr)
	}
	for range 200 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := l.Addr().String()
		l.Close()
		if got == addr {
			t.Fatalf("the kernel handed the refusing port %s to a server on :0", addr)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("after release, %s cannot be listened on: %v", addr, err)
	}
	l.Close()
}
