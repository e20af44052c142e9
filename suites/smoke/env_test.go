package smoke

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/suites/kit"
)

// env is the smoke suite's servers, each behind its own Toxiproxy link.
type env struct {
	*kit.Env
	stack   *services.Stack
	pg, vk  *faults.Link
	kafka   *faults.Link
	pids    []int
	addrs   []string
	tmpDirs []string
}

func startEnv(ctx context.Context) *env {
	k, err := kit.StartServers(ctx, kit.Need{Postgres: true, Kafka: true, Valkey: true, KafkaLink: true, Log: os.Stderr})
	Expect(err).NotTo(HaveOccurred())
	st := k.Stack
	e := &env{Env: k, stack: st, kafka: k.KafkaLink}
	fmt.Fprintf(os.Stderr, "smoke: provider %s; toxiproxy API on %s\n", st.Provider, k.Toxi.APIAddr())
	e.pg, err = k.Toxi.Link("postgres", hostPort(st.Postgres.Endpoint()))
	Expect(err).NotTo(HaveOccurred())
	e.vk, err = k.Toxi.Link("valkey", st.Valkey.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	for _, s := range []services.Service{st.Postgres, st.Kafka, st.Valkey} {
		e.pids = append(e.pids, s.PID())
		e.addrs = append(e.addrs, hostPort(s.Endpoint()))
	}
	e.tmpDirs = ownDirs(st)
	return e
}

func (e *env) stop(ctx context.Context) { Expect(e.Stop(ctx)).To(Succeed()) }

// hostPort pulls host:port out of a postgres:// DSN; other endpoints are one already.
func hostPort(endpoint string) string {
	if h, _, ok := cutDSN(endpoint); ok {
		return h
	}
	return endpoint
}

func cutDSN(dsn string) (string, string, bool) {
	const p = "postgres://"
	if len(dsn) < len(p) || dsn[:len(p)] != p {
		return "", "", false
	}
	rest := dsn[len(p):]
	at, slash := -1, len(rest)
	for i, c := range rest {
		if c == '@' && at < 0 {
			at = i
		}
		if c == '/' {
			slash = i
			break
		}
	}
	return rest[at+1 : slash], rest[slash:], true
}

// withHost rewrites a DSN to dial addr instead (through a link).
func withHost(dsn, addr string) string {
	_, path, _ := cutDSN(dsn)
	return "postgres://postgres@" + addr + path
}

// ownDirs lists the temp dirs of this run's local servers (other runs on the
// machine may have theirs).
func ownDirs(st *services.Stack) []string {
	var out []string
	for _, s := range []services.Service{st.Postgres, st.Kafka, st.Valkey} {
		if d, ok := s.(interface{ Dir() string }); ok {
			out = append(out, d.Dir())
		}
	}
	return out
}

// expectNothingLeft asserts that no process, listening port or temp dir of
// this run remains.
func expectNothingLeft(pids []int, addrs []string, dirs []string) {
	for _, pid := range pids {
		Eventually(func() error { return syscall.Kill(pid, 0) }, 10*time.Second, 50*time.Millisecond).
			Should(MatchError(syscall.ESRCH), "server pid %d still alive", pid)
	}
	for _, a := range addrs {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err == nil {
			c.Close()
		}
		Expect(err).To(HaveOccurred(), "something still listens on %s", a)
	}
	for _, d := range dirs {
		_, err := os.Stat(d)
		Expect(os.IsNotExist(err)).To(BeTrue(), "temp dir %s left behind", d)
	}
}
