package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/freeport"
)

// The fixture services of conform's tests, built once for this package.
var (
	svcOnce sync.Once
	svcDir  string
	svcErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if svcDir != "" {
		os.RemoveAll(svcDir)
	}
	os.Exit(code)
}

func services(t *testing.T) (paysvc, stripesvc string) {
	t.Helper()
	svcOnce.Do(func() {
		svcDir, svcErr = os.MkdirTemp("", "idemcheck-init-test-")
		if svcErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", svcDir, "../../conform/testdata/services/paysvc", "../../conform/testdata/services/stripesvc").CombinedOutput()
		if err != nil {
			svcErr = fmt.Errorf("build the fixture services: %v\n%s", err, out)
		}
	})
	if svcErr != nil {
		t.Fatal(svcErr)
	}
	return filepath.Join(svcDir, "paysvc"), filepath.Join(svcDir, "stripesvc")
}

// probeInit runs `idemcheck init --probe` and returns the written config's path.
func probeInit(t *testing.T, args ...string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	var out, errb bytes.Buffer
	args = append([]string{"init", "--config", cfg}, args...)
	if code := dispatch(args, &out, &errb); code != 0 {
		t.Fatalf("idemcheck %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("probe log:\n%s\nwritten config:\n%s", errb.String(), b)
	return cfg
}

type runReport struct {
	ExitCode int `json:"exit_code"`
	Results  []struct {
		ID       string `json:"id"`
		Verdict  string `json:"verdict"`
		Why      string `json:"why"`
		Findings []struct {
			Kind string `json:"kind"`
		} `json:"findings"`
	} `json:"results"`
}

// runWith runs `idemcheck run` on a written config, as a user would.
func runWith(t *testing.T, cfg string, args ...string) (int, runReport) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	args = append([]string{"run", "--config", cfg, "--quiet", "--seed", "7", "--json", js}, args...)
	var out, errb bytes.Buffer
	start := time.Now()
	code := dispatch(args, &out, &errb)
	t.Logf("idemcheck %s: exit %d in %s\n%s", strings.Join(args, " "), code, time.Since(start).Round(time.Second), out.String())
	if code > 1 {
		t.Logf("stderr:\n%s", errb.String())
	}
	var rep runReport
	if b, err := os.ReadFile(js); err == nil {
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("JSON report: %v", err)
		}
	}
	return code, rep
}

const (
	tok1 = "Authorization: Bearer probe-u1"
	tok2 = "Authorization: Bearer probe-u2"
)

// TestProbedConfigPassesTheCorrectService: the config init --probe writes
// for the correct paysvc needs no edit; every check that applies passes,
// protocol vectors included (--strict).
func TestProbedConfigPassesTheCorrectService(t *testing.T) {
	t.Parallel()
	paysvc, _ := services(t)
	cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--", paysvc, "--flaw", "none")
	text, _ := os.ReadFile(cfg)
	for _, want := range []string{
		`key: {header: "Idempotency-Key"}`, `payment_id: "id"`,
		`- {status: [201], field: "status", equals: "succeeded", outcome: succeeded}`,
		`- {status: [202], field: "status", equals: "processing", outcome: processing}`,
		`- {status: [402], field: "status", equals: "failed", outcome: failed}`,
		`- {status: [409], outcome: in_progress}`, `- {status: [422], outcome: mismatch}`,
		"profile: ietf", "mismatch_status: 422", "in_progress_status: 409", "retry_after: required",
		"missing_key_status: 400", `replay_header: "Idempotent-Replayed"`, "quoted_key_same: true",
		`lookup:` + "\n" + `  path: "/payments/{{payment_id}}"`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the probed config lacks %q", want)
		}
	}
	code, rep := runWith(t, cfg, "--strict")
	if code != 0 {
		t.Errorf("run --strict with the probed config: exit %d, want 0", code)
	}
	for _, r := range rep.Results {
		if r.Verdict != "pass" && r.Verdict != "n/a" {
			t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
		}
	}
	if len(rep.Results) < 30 {
		t.Errorf("%d results, want every check", len(rep.Results))
	}
}

// TestProbedConfigOfARunningService: a service the user started, pointed at
// a fixed fakepsp address; the config keeps that address and run passes.
func TestProbedConfigOfARunningService(t *testing.T) {
	t.Parallel()
	paysvc, _ := services(t)
	svcPort, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	pspPort, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(paysvc, "--flaw", "none")
	cmd.Env = []string{fmt.Sprintf("PORT=%d", svcPort), fmt.Sprintf("PSP_URL=http://127.0.0.1:%d", pspPort), "PSP_KEY=sk_test_idemcheck", "STATE_DIR=" + t.TempDir()}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url := fmt.Sprintf("http://127.0.0.1:%d", svcPort)
	var cfg string
	for i := 0; ; i++ {
		// The service may still be binding its port.
		var out, errb bytes.Buffer
		cfg = filepath.Join(t.TempDir(), "idemcheck.yaml")
		code := dispatch([]string{"init", "--config", cfg, "--probe", url, "--psp-listen", fmt.Sprintf("127.0.0.1:%d", pspPort), "--caller", tok1, "--caller", tok2}, &out, &errb)
		if code == 0 {
			break
		}
		if i == 50 || !strings.Contains(errb.String(), "nothing answers") {
			t.Fatalf("init --probe: exit %d\n%s", code, errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	text, _ := os.ReadFile(cfg)
	if !strings.Contains(string(text), fmt.Sprintf(`fakepsp_listen: "127.0.0.1:%d"`, pspPort)) || strings.Contains(string(text), "command:") {
		t.Errorf("the config of a running service should keep its fakepsp address and start nothing:\n%s", text)
	}
	code, rep := runWith(t, cfg, "--strict", "--only", "A2,A5,A6,A1,S-restart,P-mismatch,P-conflict,P-replay-header,P-missing-key")
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	for _, r := range rep.Results {
		want := "pass"
		if r.ID == "S-restart" {
			want = "n/a" // idemcheck does not own the process
		}
		if r.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", r.ID, r.Verdict, r.Why, want)
		}
	}
}

// TestProbedConfigCatchesBrokenServices: the same probe against services
// with one guard off writes a config with which run finds the flaw.
func TestProbedConfigCatchesBrokenServices(t *testing.T) {
	t.Parallel()
	paysvc, stripesvc := services(t)
	cases := []struct {
		name  string
		cmd   []string
		check string
		kind  string
	}{
		{"check-then-insert", []string{paysvc, "--flaw", "check-then-insert"}, "A2", "double-charge"},
		{"no-key", []string{paysvc, "--flaw", "no-key"}, "A2", "double-charge"},
		{"unscoped", []string{paysvc, "--flaw", "unscoped"}, "A6", "inconsistent-answer"},
		{"mismatch-accepted", []string{paysvc, "--flaw", "mismatch-accepted"}, "A5", "mismatch-accepted"},
		{"new-psp-key", []string{paysvc, "--flaw", "new-psp-key"}, "A1", "double-charge"},
		{"memory-store", []string{paysvc, "--flaw", "memory-store"}, "S-restart", "double-charge"},
		{"stripe-go-fresh-key", []string{stripesvc}, "A1", "double-charge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--"}, c.cmd...)
			cfg := probeInit(t, args...)
			shortQuiet(t, cfg)
			code, rep := runWith(t, cfg, "--only", c.check)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			found := false
			for _, r := range rep.Results {
				for _, f := range r.Findings {
					found = found || (r.ID == c.check && f.Kind == c.kind)
				}
			}
			if !found {
				t.Errorf("no %s finding on %s: %+v", c.kind, c.check, rep.Results)
			}
		})
	}
}

// Without --probe, init writes the starter (as run --init), and never
// overwrites a file.
func TestInitWritesTheStarterOnce(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"init", "--config", cfg}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if code := dispatch([]string{"init", "--config", cfg}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "refusing to overwrite") {
		t.Errorf("second init: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"init", "--config", cfg, "--probe", "http://127.0.0.1:1", "--psp-listen", "127.0.0.1:2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("init --probe over an existing file: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	down := filepath.Join(t.TempDir(), "down.yaml")
	if code := dispatch([]string{"init", "--config", down, "--probe", "http://127.0.0.1:1", "--psp-listen", "127.0.0.1:2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "nothing answers at http://127.0.0.1:1") {
		t.Errorf("init --probe of a service that is down: exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(down); err == nil {
		t.Errorf("a failed probe wrote %s", down)
	}
}

// init's help is on stdout with exit 0 and describes --probe and each flag.
func TestInitHelp(t *testing.T) {
	for _, args := range [][]string{{"init", "--help"}, {"help", "init"}} {
		var out, errb bytes.Buffer
		if code := dispatch(args, &out, &errb); code != 0 || errb.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		for _, w := range []string{"--probe URL", "-- COMMAND", "-caller", "-psp-listen", "-key-header", "-copies", "Exit codes"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: help lacks %q", args, w)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "idemcheck init  --probe URL") {
		t.Errorf("the usage does not list init")
	}
	if code := dispatch([]string{"init", "--caller", "no colon"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "want 'Header: value'") {
		t.Errorf("a bad --caller: exit %d, stderr %q", code, errb.String())
	}
}

func TestRunInitProbeIsInitProbe(t *testing.T) {
	var out, errb bytes.Buffer
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	code := dispatch([]string{"run", "--init", "--config", cfg, "--probe", "http://127.0.0.1:1", "--psp-listen", "127.0.0.1:2", "--caller", tok1}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "idemcheck init --probe: nothing answers at http://127.0.0.1:1") {
		t.Errorf("run --init --probe: exit %d, stderr %q", code, errb.String())
	}
	rest, ok := runInitProbe([]string{"--init", "--probe", "U", "--", "svc", "--init"})
	if !ok || strings.Join(rest, " ") != "--probe U -- svc --init" {
		t.Errorf("runInitProbe: %v %v", rest, ok)
	}
	if _, ok := runInitProbe([]string{"--init"}); ok {
		t.Errorf("run --init alone is the starter, not a probe")
	}
}

// TestProbedConfigPassesCorrectVariants: services that are right in ways a
// naive probe could misread (keys only UUIDs, duplicates that wait for the
// answer, a whole-body fingerprint, a mismatch answered 400 like a missing
// key) get a config with which every check that applies finds no violation.
func TestProbedConfigPassesCorrectVariants(t *testing.T) {
	t.Parallel()
	paysvc, _ := services(t)
	cases := []struct {
		name string
		args []string
		says string // a line the probed config must hold
	}{
		{"uuid-only-keys", []string{"--key-length", "36"}, `key: {header: "Idempotency-Key"}`},
		{"lock-and-replay", []string{"--dup", "wait"}, "the service waits on the key"},
		{"whole-body-fingerprint", []string{"--fingerprint", "body"}, "mismatch_status: 422"},
		{"mismatch-400", []string{"--mismatch-status", "400"}, `- {status: [400], field: "code", equals: "idempotency_key_reused", outcome: mismatch}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--", paysvc, "--flaw", "none"}, c.args...)
			cfg := probeInit(t, args...)
			if text, _ := os.ReadFile(cfg); !strings.Contains(string(text), c.says) {
				t.Errorf("the probed config lacks %q", c.says)
			}
			shortQuiet(t, cfg)
			code, rep := runWith(t, cfg)
			if code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
			for _, r := range rep.Results {
				if r.Verdict == "violation" || r.Verdict == "error" || r.Verdict == "inconclusive" {
					t.Errorf("%s: %s (%s)", r.ID, r.Verdict, r.Why)
				}
			}
		})
	}
}
