package conform

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/fakepsp"
)

var paysvcBin, stripesvcBin, creditsvcBin, sqscreditBin, toxiproxyBin string

func TestMain(m *testing.M) {
	if cfg := os.Getenv("IDEMCHECK_TEST_RUN"); cfg != "" {
		// A run in a process of its own, for a test to SIGKILL.
		code, _ := Run(context.Background(), Options{Config: cfg, Seed: 1, Only: []string{"A2"}, Stdout: os.Stdout, Stderr: os.Stderr})
		os.Exit(code)
	}
	if args := os.Getenv("IDEMCHECK_TEST_PSP"); args != "" {
		// `idemcheck psp` in a process of its own: a fakepsp the run under
		// test did not start, as in a deployment.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		os.Exit(fakepsp.RunStandalone(ctx, strings.Fields(args), os.Stdout, os.Stderr))
	}
	sweepTestDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("idemcheck-conform-test-%d-", os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	paysvcBin = filepath.Join(dir, "paysvc")
	stripesvcBin = filepath.Join(dir, "stripesvc")
	creditsvcBin = filepath.Join(dir, "creditsvc")
	sqscreditBin = filepath.Join(dir, "sqscredit")
	// toxiproxy-server itself, from the module idemcheck links, for the
	// tests of a Toxiproxy of the user's (toxiproxy.api).
	toxiproxyBin = filepath.Join(dir, "server")
	out, err := exec.Command("go", "build", "-o", dir, "./testdata/services/paysvc", "./testdata/services/stripesvc", "./testdata/services/creditsvc", "./testdata/services/sqscredit", "github.com/Shopify/toxiproxy/v2/cmd/server").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build the test services: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sweepTestDirs removes the build directories of earlier test binaries that
// were killed before their cleanup ran (the pid in the name is gone).
func sweepTestDirs() {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-conform-test-*"))
	for _, d := range old {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "idemcheck-conform-test-%d-", &pid); err != nil || pid <= 0 {
			os.RemoveAll(d) // the unnamed form of older runs
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(d)
		}
	}
}

// fixture describes one run of paysvc under idemcheck.
type fixture struct {
	flaw      string
	instances int
	ttl       string // the service's real key window
	window    string // what the config documents
	horizon   string
	extra     string   // appended YAML
	effects   string   // replaces "fakepsp: true"
	env       string   // target.env entries, YAML flow mapping body
	profile   string   // default ietf
	args      []string // more paysvc flags
	// command replaces the whole target.command (YAML flow sequence body).
	command string
	quiesce string // default 1s
	settle  string // default 150ms
}

func (f fixture) config(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "idemcheck.yaml")
	if err := os.WriteFile(p, []byte(f.configText(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f fixture) configText(t *testing.T) string {
	t.Helper()
	if f.instances == 0 {
		f.instances = 1
	}
	if f.ttl == "" {
		f.ttl = "1h"
	}
	if f.window == "" {
		f.window = "2s"
	}
	if f.profile == "" {
		f.profile = "ietf"
	}
	if f.effects == "" {
		f.effects = "fakepsp: true"
	}
	if f.horizon == "" {
		f.horizon = "1s"
	}
	if f.quiesce == "" {
		f.quiesce = "1s"
	}
	if f.settle == "" {
		f.settle = "150ms"
	}
	if f.command == "" {
		f.command = fmt.Sprintf("%q, \"--flaw\", %q, \"--ttl\", %q, \"--lease\", \"1s\", \"--hold\", \"100ms\"", paysvcBin, f.flaw, f.ttl)
		for _, a := range f.args {
			f.command += fmt.Sprintf(", %q", a)
		}
	}
	var urls []string
	for i := 0; i < f.instances; i++ {
		urls = append(urls, fmt.Sprintf(`"http://127.0.0.1:${PORT_%d}"`, i))
	}
	text := fmt.Sprintf(`# paysvc --flaw %[1]s
target:
  base_urls: [%[2]s]
  command: [%[3]s]
  instances: %[5]d
  ready: /healthz
  start_timeout: 15s
  env: {%[10]s}
create:
  method: POST
  path: /payments
  key: {header: Idempotency-Key}
  body: '{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}'
callers:
  - {name: u1, headers: {Authorization: "Bearer secret-token-u1"}}
  - {name: u2, headers: {Authorization: "Bearer secret-token-u2"}}
outcomes:
  payment_id: id
  rules:
    - {status: [200, 201], field: status, equals: succeeded, outcome: succeeded}
    - {status: [200, 201, 202], field: status, equals: processing, outcome: processing}
    - {status: [402, 502], field: status, equals: failed, outcome: failed}
    - {status: [200], field: status, equals: void, outcome: void}
    - {status: [409], outcome: in_progress}
    - {status: [422], outcome: mismatch}
lookup:
  path: /payments/{{payment_id}}
refund:
  path: /payments/{{payment_id}}/refund
effects:
  %[9]s
profile: %[11]s
protocol:
  replay_header: Idempotent-Replayed
  retry_after: required
retry_horizon: %[6]s
key_window: %[7]s
concurrency: 6
timeout: 3s
settle: %[13]s
converge_within: 6s
quiesce: %[12]s
%[8]s`, f.flaw, strings.Join(urls, ", "), f.command, f.ttl, f.instances, f.horizon, f.window, f.extra, f.effects, f.env, f.profile, f.quiesce, f.settle)
	return text
}

func (f fixture) run(t *testing.T, o Options) (int, *report.Report, string) {
	t.Helper()
	return runConfig(t, f.config(t), f.flaw, o)
}

func runText(t *testing.T, text string, o Options) (int, *report.Report, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "idemcheck.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return runConfig(t, p, "(external)", o)
}

func runConfig(t *testing.T, path, label string, o Options) (int, *report.Report, string) {
	t.Helper()
	o.Config = path
	var out, errb bytes.Buffer
	o.Stdout, o.Stderr = &out, &errb
	if o.Seed == 0 {
		o.Seed = 42
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, rep := Run(ctx, o)
	t.Logf("flaw %s exit %d\n%s", label, code, out.String())
	if testing.Verbose() || code != 0 {
		t.Logf("stderr:\n%s", errb.String())
	}
	return code, rep, out.String() + errb.String()
}

func kinds(rep *report.Report) map[string]bool {
	m := map[string]bool{}
	if rep == nil {
		return m
	}
	for _, r := range rep.Results {
		for _, f := range r.Findings {
			m[f.Kind] = true
		}
	}
	return m
}

func verdicts(rep *report.Report, v scenario.Verdict) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict == v {
			out = append(out, r.ID+": "+r.Why)
		}
	}
	return out
}

// servedBy is the fixture's config pointed at a service idemcheck does not
// start (an in-process test server at url), with converge_within set to
// converge when it is not "".
func servedBy(t *testing.T, f fixture, url, converge string) string {
	t.Helper()
	lines := strings.Split(f.configText(t), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  base_urls:"):
			lines[i] = "  base_urls: [\"" + url + "\"]"
		case strings.HasPrefix(l, "  command:"), strings.HasPrefix(l, "  instances:"), strings.HasPrefix(l, "  start_timeout:"), strings.HasPrefix(l, "  env:"):
			lines[i] = ""
		case converge != "" && strings.HasPrefix(l, "converge_within:"):
			lines[i] = "converge_within: " + converge
		}
	}
	return strings.Join(lines, "\n")
}
