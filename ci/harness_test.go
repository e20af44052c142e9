// Package ci holds the CI examples (ci/examples) and the test that runs each
// example's idemcheck commands as written, against a fixture service.
package ci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// repoRoot is the checkout the action builds idemcheck from.
var repoRoot, _ = filepath.Abs("..")

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// fixtureService builds paysvc, the fixture service the examples run
// against; idemcheck itself is built by each example's own commands.
func fixtureService(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "idemcheck-ci-test-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", buildDir, "../conform/testdata/services/paysvc").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "paysvc")
}

// fixtureConfig is the user's idemcheck.yaml of the examples: paysvc
// started by idemcheck (target.command), its timings short for a test.
func fixtureConfig(paysvc, flaw string) string {
	return fmt.Sprintf(`target:
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  command: [%q, "--flaw", %q, "--lease", "1s", "--hold", "100ms"]
  ready: /healthz
  start_timeout: 15s
create:
  path: /payments
  key: {header: Idempotency-Key}
  body: '{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}'
callers:
  - {name: u1, headers: {Authorization: "Bearer ci-u1"}}
  - {name: u2, headers: {Authorization: "Bearer ci-u2"}}
outcomes:
  payment_id: id
  rules:
    - {status: [200, 201], field: status, equals: succeeded, outcome: succeeded}
    - {status: [200, 201, 202], field: status, equals: processing, outcome: processing}
    - {status: [402, 502], field: status, equals: failed, outcome: failed}
    - {status: [409], outcome: in_progress}
    - {status: [422], outcome: mismatch}
lookup:
  path: /payments/{{payment_id}}
refund:
  path: /payments/{{payment_id}}/refund
effects:
  fakepsp: true
protocol:
  replay_header: Idempotent-Replayed
  retry_after: required
retry_horizon: 1s
key_window: 2s
concurrency: 6
timeout: 3s
settle: 150ms
converge_within: 6s
quiesce: 1s
`, paysvc, flaw)
}

// workspace is the user's checkout: idemcheck.yaml at its root.
func workspace(t *testing.T, paysvc, flaw string) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "idemcheck.yaml"), []byte(fixtureConfig(paysvc, flaw)), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces GitHub expressions from vars; one it does not know is a
// test failure, so an example cannot gain an expression nobody evaluates.
func expand(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		name := exprRE.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			t.Errorf("unknown expression %s in %q", m, s)
		}
		return v
	})
}

// shell runs a script as the CI runner would (bash, errexit, pipefail) in
// dir, bounded in time, and returns its exit code and output.
func shell(t *testing.T, dir, script string, env []string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	select {
	case <-done:
	case <-time.After(6 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("script still running after 6m, killed:\n%s\n%s", script, out.String())
	}
	t.Logf("$ %s\n(exit %d in %s)\n%s", strings.TrimSpace(script), cmd.ProcessState.ExitCode(), time.Since(start).Round(time.Second), tailOf(out.String(), 12))
	return cmd.ProcessState.ExitCode(), out.String()
}

func tailOf(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// reportsIn asserts the three reports of a run in dir (HTML, JUnit, JSON)
// and that the JSON's exit code is the one the command exited with.
func reportsIn(t *testing.T, dir, junit, js string, code int) {
	t.Helper()
	for _, p := range []string{filepath.Join(dir, "index.html"), junit, js} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("report %s not written: %v", p, err)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		return
	}
	var rep struct {
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.ExitCode != code {
		t.Errorf("%s: exit_code %d (%v), want %d", js, rep.ExitCode, err, code)
	}
}
