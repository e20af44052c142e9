//go:build unix

package freeport

import (
	"fmt"
	"syscall"
)

// Refusing returns a loopback address that refuses every connection for as
// long as release is not called: its port is bound, without SO_REUSEADDR,
// and never listened on. A port found free and closed again (Get, or a
// listener on :0 closed at once) can be taken by the next server any test
// starts on :0, which then answers where a test wanted "connection
// refused"; a port held bound cannot be.
func Refusing() (addr string, release func() error, err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("freeport: a socket to hold a refusing port: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		_ = syscall.Close(fd)
		return "", nil, fmt.Errorf("freeport: bind a refusing port: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		_ = syscall.Close(fd)
		return "", nil, fmt.Errorf("freeport: the refusing port's address: %w", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		_ = syscall.Close(fd)
		return "", nil, fmt.Errorf("freeport: the refusing port's address is %T, not IPv4", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in4.Port), func() error { return syscall.Close(fd) }, nil
}
