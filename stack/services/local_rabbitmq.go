package services

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

// rabbitmqServer is Debian's package's start script. It is run, not its
// /usr/sbin wrapper, which would switch to the rabbitmq user.
func rabbitmqServer() (string, error) {
	dir := os.Getenv("IDEMCHECK_RABBITMQ_SBIN")
	if dir == "" {
		dir = "/usr/lib/rabbitmq/bin"
	}
	bin := filepath.Join(dir, "rabbitmq-server")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no %s (run ci/install-deps, or set IDEMCHECK_RABBITMQ_SBIN): %w", bin, err)
	}
	return bin, nil
}

// rabbit is a RabbitMQ node with the Erlang port mapper it registered
// with. Each run has its own mapper on a free port: the system's (port
// 4369, on every interface, outliving the node as a daemon) would break
// both "loopback only" and "nothing left running".
type rabbit struct {
	*localProc
	epmd *exec.Cmd
	mgmt string
}

// Management is the node's management API (http://guest:guest@127.0.0.1:port):
// the queue checks read a queue's acknowledgements there, which AMQP does
// not tell (a passive declare counts only the ready messages).
func (r *rabbit) Management() string { return r.mgmt }

// Stop stops the node, then its mapper.
func (r *rabbit) Stop(ctx context.Context) error {
	err := r.localProc.Stop(ctx)
	_ = r.epmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = r.epmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = r.epmd.Process.Kill()
		<-done
	}
	return err
}

func startLocalRabbitMQ(ctx context.Context) (Service, error) {
	bin, err := rabbitmqServer()
	if err != nil {
		return nil, fmt.Errorf("rabbitmq (local): %w", err)
	}
	epmdBin, err := exec.LookPath("epmd")
	if err != nil {
		return nil, fmt.Errorf("rabbitmq (local): epmd not on PATH (run ci/install-deps): %w", err)
	}
	dir, err := tempDir(RabbitMQ)
	if err != nil {
		return nil, err
	}
	ports := make([]int, 4)
	for i := range ports {
		if ports[i], err = freeport.Get(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	port, dist, epmdPort, mgmtPort := ports[0], ports[1], ports[2], ports[3]
	epmd := exec.Command(epmdBin, "-port", fmt.Sprint(epmdPort), "-address", "127.0.0.1")
	epmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := epmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("rabbitmq (local): start epmd: %w", err)
	}
	stopEpmd := func() { _ = epmd.Process.Kill(); _ = epmd.Wait() }
	files := map[string]string{
		// The management plugin alone: it adds no measurable start time
		// here (6.6 s and 7.8 s against 8.1 s twice without it).
		"enabled_plugins": "[rabbitmq_management].\n",
		// The only listeners (AMQP, the management API) are on loopback;
		// guest may log in from there.
		"rabbitmq.conf": fmt.Sprintf("listeners.tcp.1 = 127.0.0.1:%d\nloopback_users.guest = true\nmanagement.tcp.ip = 127.0.0.1\nmanagement.tcp.port = %d\n", port, mgmtPort),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			stopEpmd()
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(),
		"HOME="+dir, // the Erlang cookie
		fmt.Sprintf("RABBITMQ_NODENAME=idemcheck-%d@localhost", port),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		fmt.Sprintf("RABBITMQ_NODE_PORT=%d", port),
		fmt.Sprintf("RABBITMQ_DIST_PORT=%d", dist),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "no-rabbitmq-env.conf"),
		"RABBITMQ_PID_FILE="+filepath.Join(dir, "rabbitmq.pid"),
		// The script then execs the VM itself, so the pid started here is
		// the node's (Pdeathsig reaches it, SIGTERM stops it gracefully);
		// -noinput keeps the shell off.
		"RABBITMQ_ALLOW_INPUT=true",
		"RABBITMQ_SERVER_START_ARGS=-noinput",
		fmt.Sprintf("ERL_EPMD_PORT=%d", epmdPort),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1} -start_epmd false",
	)
	p, err := startLocal(RabbitMQ, dir, srv)
	if err != nil {
		stopEpmd()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	r := &rabbit{localProc: p, epmd: epmd, mgmt: fmt.Sprintf("http://guest:guest@127.0.0.1:%d", mgmtPort)}
	p.endpoint = fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", port)
	p.stopGracefully = func(context.Context) error { return srv.Process.Signal(syscall.SIGTERM) }
	err = waitFor(ctx, "rabbitmq", 90*time.Second, p.exited, func(ctx context.Context) error {
		v, err := rabbitmqVersion(ctx, p.endpoint)
		p.version = v
		return err
	})
	if err != nil {
		_ = r.Stop(context.Background())
		return nil, fmt.Errorf("rabbitmq (local): %w\n%s", err, logtail.Lines(p.logPath, 30))
	}
	return r, nil
}

// rabbitmqVersion opens an AMQP connection, the readiness that counts (the
// port opens before the node accepts logins), and returns the version the
// server announces.
func rabbitmqVersion(ctx context.Context, url string) (string, error) {
	cfg := amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)}
	if dl, ok := ctx.Deadline(); ok {
		cfg.Dial = amqp.DefaultDial(time.Until(dl))
	}
	c, err := amqp.DialConfig(url, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	v, _ := c.Properties["version"].(string)
	if v == "" {
		return "", errors.New("the server announced no version")
	}
	return v, nil
}
