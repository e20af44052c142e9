package deploy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/stack/services"
)

func TestMain(m *testing.M) {
	if args := os.Getenv("IDEMCHECK_DEPLOY_TEST_PSP"); args != "" {
		// `idemcheck psp`, as compose.yaml's fakepsp container runs it.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		os.Exit(fakepsp.RunStandalone(ctx, strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestComposeConfigAsWritten runs compose/idemcheck.yaml, unedited but for
// its addresses and its docker commands, against the Compose example's
// pieces as real local processes: Postgres, toxiproxy-server with its proxy
// metrics, fakepsp started with compose.yaml's own arguments, the migration,
// and the two payments instances with compose.yaml's environment (the
// database through the link idemcheck makes). The run must pass; with the
// service's deliberate bug on, A1 must find the double charge.
func TestComposeConfigAsWritten(t *testing.T) {
	ex := load(t)
	// Cleanups, not defers: the parallel subtests run after this returns.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	st, err := services.Start(ctx, services.Options{Postgres: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	bin := buildBinaries(t)
	pg := createPayDatabase(t, ctx, st.Postgres.Endpoint(), bin.payments)
	for _, tc := range []struct {
		name string
		args []string
		only []string
		code int
		kind string
	}{
		{"correct", nil, nil, conform.ExitPass, ""},
		{"forget-on-timeout", []string{"-forget-on-timeout"}, []string{"A1"}, conform.ExitViolation, "double-charge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each has its own servers and instances; they share only the
			// database, where each run's keys and orders are its own, and
			// most of each run is its 30 s quiet period.
			t.Parallel()
			d := localCompose(t, ex, bin, pg, tc.args)
			var out, errb bytes.Buffer
			code, rep := conform.Run(ctx, conform.Options{Config: d.config, Seed: 7, Only: tc.only, Stdout: &out, Stderr: &errb})
			t.Logf("exit %d\n%s\n%s", code, out.String(), errb.String())
			if code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			found := tc.kind == ""
			for _, r := range rep.Results {
				for _, f := range r.Findings {
					found = found || f.Kind == tc.kind
				}
				if tc.kind == "" && (r.Verdict == "error" || r.Verdict == "inconclusive" || r.Verdict == "violation") {
					t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
				}
			}
			if !found {
				t.Errorf("no %s finding", tc.kind)
			}
			if ps := proxies(t, d.api); len(ps) != 0 {
				t.Errorf("proxies left on toxiproxy-server: %v", ps)
			}
		})
	}
}

type localDeploy struct{ config, api string }

// localCompose starts compose.yaml's servers as local processes and writes
// compose/idemcheck.yaml with their addresses.
func localCompose(t *testing.T, ex *examples, bin binaries, pg *url.URL, args []string) localDeploy {
	t.Helper()
	dir := t.TempDir()
	tp, psp, linkPort := freePort(t), freePort(t), freePort(t)
	api := fmt.Sprintf("http://127.0.0.1:%d", tp)
	start(t, exec.Command(bin.toxiproxy, "-host", "127.0.0.1", "-port", strconv.Itoa(tp), "-proxy-metrics"), api+"/version")
	pspCmd := ex.compose.Services["fakepsp"].Command
	pspArgs := strings.Join(pspCmd[1:], " ")
	pspArgs = strings.Replace(pspArgs, "0.0.0.0:12111", fmt.Sprintf("127.0.0.1:%d", psp), 1)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "IDEMCHECK_DEPLOY_TEST_PSP="+pspArgs)
	start(t, cmd, fmt.Sprintf("http://127.0.0.1:%d/_psp/info", psp))

	env := ex.compose.Services["pay-1"].Environment
	dsn := *pg
	dsn.Host = fmt.Sprintf("127.0.0.1:%d", linkPort)
	ports := []int{freePort(t), freePort(t)}
	script := fmt.Sprintf(`#!/bin/sh
cd %[1]q
PORT=$1 DATABASE_URL=%[2]q PSP_URL=http://127.0.0.1:%[3]d PSP_KEY=%[4]q setsid %[5]q %[6]s >>"$1.log" 2>&1 &
echo $! > "$1.pid"
echo $! >> pids
`, dir, dsn.String(), psp, env["PSP_KEY"], bin.payments, strings.Join(args, " "))
	startSh := filepath.Join(dir, "start.sh")
	if err := os.WriteFile(startSh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGCONT)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	for _, p := range ports {
		if out, err := exec.Command("sh", startSh, strconv.Itoa(p)).CombinedOutput(); err != nil {
			t.Fatalf("start instance %d: %v: %s", p, err, out)
		}
	}
	pid := fmt.Sprintf(`$(cat %s/${INSTANCE}.pid)`, dir)
	b, err := os.ReadFile(filepath.Join(composeDir, "idemcheck.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, r := range [][2]string{
		{"http://pay-1:8080", fmt.Sprintf("http://127.0.0.1:%d", ports[0])},
		{"http://pay-2:8080", fmt.Sprintf("http://127.0.0.1:%d", ports[1])},
		{"instances: [pay-1, pay-2]", fmt.Sprintf(`instances: ["%d", "%d"]`, ports[0], ports[1])},
		{`kill: [docker, kill, "${INSTANCE}"]`, fmt.Sprintf(`kill: [sh, -c, "kill -9 %s"]`, pid)},
		{`pause: [docker, pause, "${INSTANCE}"]`, fmt.Sprintf(`pause: [sh, -c, "kill -STOP %s"]`, pid)},
		{`resume: [docker, unpause, "${INSTANCE}"]`, fmt.Sprintf(`resume: [sh, -c, "kill -CONT %s"]`, pid)},
		{`restart: [docker, start, "${INSTANCE}"]`, fmt.Sprintf(`restart: [sh, %q, "${INSTANCE}"]`, startSh)},
		{"fakepsp_url: http://fakepsp:12111", fmt.Sprintf("fakepsp_url: http://127.0.0.1:%d", psp)},
		{"api: http://toxiproxy:8474", "api: " + api},
		{`upstream: "postgres:5432", listen: "0.0.0.0:15432"`, fmt.Sprintf(`upstream: %q, listen: "127.0.0.1:%d"`, pg.Host, linkPort)},
	} {
		if strings.Count(text, r[0]) != 1 {
			t.Fatalf("compose/idemcheck.yaml: %q appears %d times, want once (this test rewrites it)", r[0], strings.Count(text, r[0]))
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	cfg := filepath.Join(dir, "idemcheck.yaml")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return localDeploy{config: cfg, api: api}
}

func proxies(t *testing.T, api string) []string {
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

type binaries struct{ payments, toxiproxy string }

func buildBinaries(t *testing.T) binaries {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir, "../payments/cmd/payments", "github.com/Shopify/toxiproxy/v2/cmd/server").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return binaries{payments: filepath.Join(dir, "payments"), toxiproxy: filepath.Join(dir, "server")}
}

// createPayDatabase makes compose.yaml's database and user on the local
// Postgres, and the table, by the service's own migration.
func createPayDatabase(t *testing.T, ctx context.Context, admin, payments string) *url.URL {
	t.Helper()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"CREATE ROLE pay LOGIN PASSWORD 'pay'", "CREATE DATABASE pay OWNER pay"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User, u.Path = url.UserPassword("pay", "pay"), "/pay"
	cmd := exec.Command(payments, "-migrate", "-wait", "20s")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+u.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("payments -migrate: %v\n%s", err, out)
	}
	return u
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start runs cmd in a group of its own, ended with the test, and waits
// until url answers 200.
func start(t *testing.T, cmd *exec.Cmd, url string) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("%s did not answer at %s", cmd.Path, url)
		}
	}
}
