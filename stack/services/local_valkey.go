package services

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

func startLocalValkey(ctx context.Context) (Service, error) {
	bin, err := exec.LookPath("valkey-server")
	if err != nil {
		return nil, fmt.Errorf("valkey (local): valkey-server not on PATH (run ci/install-deps): %w", err)
	}
	dir, err := tempDir(Valkey)
	if err != nil {
		return nil, err
	}
	port, err := freeport.Get()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// noeviction: a dedup or key-store entry evicted under memory pressure is
	// a silent double; the harness asserts this policy.
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction",
		"--protected-mode", "no", "--daemonize", "no")
	p, err := startLocal(Valkey, dir, cmd)
	if err != nil {
		return nil, err
	}
	p.endpoint = addr
	p.stopGracefully = func(ctx context.Context) error {
		_, err := valkeyCmd(ctx, addr, "SHUTDOWN", "NOSAVE")
		return err
	}
	err = waitFor(ctx, "valkey", 15*time.Second, p.exited, func(ctx context.Context) error {
		info, err := valkeyCmd(ctx, addr, "INFO", "server")
		if err != nil {
			return err
		}
		p.version = infoField(info, "valkey_version")
		return nil
	})
	if err != nil {
		_ = p.Stop(context.Background())
		return nil, fmt.Errorf("valkey (local): %w\n%s", err, logtail.Lines(p.logPath, 30))
	}
	return p, nil
}

// valkeyCmd sends one command in RESP and returns a bulk or simple reply. It is
// only for probing and shutdown; clients under test use valkey-go.
func valkeyCmd(ctx context.Context, addr string, args ...string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		if args[0] == "SHUTDOWN" {
			return "", nil // the server closes the connection as it goes
		}
		return "", err
	}
	switch line[0] {
	case '+':
		return strings.TrimSpace(line[1:]), nil
	case '-':
		return "", fmt.Errorf("valkey: %s", strings.TrimSpace(line[1:]))
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return strings.TrimSpace(line), nil
}

func infoField(info, name string) string {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+":"); ok {
			return v
		}
	}
	return ""
}
