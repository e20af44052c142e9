// Package freeport hands out loopback ports for servers the harness starts
// and must tell their address before they bind it.
package freeport

import (
	"fmt"
	"math/rand"
	"net"
	"os"
	"sync"
	"time"
)

// Get finds a free loopback port for a server to bind. The port is
// released before the server binds it, so two things could take it in that
// gap: another server this process starts, and the source port of any
// outgoing connection (the kernel draws those from the ephemeral range, and a
// suite makes thousands of connections). Ports are therefore drawn below the
// ephemeral range, and never handed out twice by one process.
func Get() (int, error) {
	lo, hi := serverPortRange()
	portMu.Lock()
	defer portMu.Unlock()
	for i := 0; i < 200; i++ {
		p := lo + portRand.Intn(hi-lo)
		if portsGiven[p] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		portsGiven[p] = true
		return p, nil
	}
	// The range is crowded: fall back to the kernel's choice.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	p := ln.Addr().(*net.TCPAddr).Port
	portsGiven[p] = true
	return p, nil
}

// Addr is Get as a loopback host:port.
func Addr() (string, error) {
	p, err := Get()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", p), nil
}

var (
	portMu     sync.Mutex
	portsGiven = map[int]bool{}
	portRand   = rand.New(rand.NewSource(time.Now().UnixNano() ^ int64(os.Getpid())<<20))
)

// serverPortRange is [lo, hi): the ports below the kernel's ephemeral range
// (ip_local_port_range), down to 10000.
func serverPortRange() (int, int) {
	hi := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var first, last int
		if n, _ := fmt.Sscanf(string(b), "%d %d", &first, &last); n == 2 && first > 11000 {
			hi = first
		}
	}
	return 10000, hi
}
