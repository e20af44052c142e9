package survey

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// flushValkey empties the Valkey at addr, so a run finds no key of an
// earlier one.
func flushValkey(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$8\r\nFLUSHALL\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("FLUSHALL: %v", err)
	}
	if strings.TrimSpace(line) != "+OK" {
		return fmt.Errorf("FLUSHALL: %q", strings.TrimSpace(line))
	}
	return nil
}

// freshDatabase creates database name on the server of admin (dropping a
// leftover of that name first) and returns its DSN and its drop.
func freshDatabase(ctx context.Context, admin, name string) (string, func(), error) {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(name))
	exec := func(sql string) error {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(cctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(cctx, sql)
		return err
	}
	if err := exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
		return "", func() {}, err
	}
	if err := exec("CREATE DATABASE " + name); err != nil {
		return "", func() {}, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", func() {}, err
	}
	u.Path = "/" + name
	return u.String(), func() { _ = exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") }, nil
}
