package conform

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/internal/freeport"
)

// controlledChecks need to kill, freeze and restart an instance.
var controlledChecks = []string{"A3", "A4", "S-restart", "B5"}

// TestServiceControlledByCommands: two instances the test starts itself, as
// a deployment would, that idemcheck kills, freezes and restarts only
// through target.control commands (shell commands on pid files here; docker
// or kubectl in CI). A3, A4, S-restart and B5 must reach the verdicts they
// reach with target.command, on the correct service and on the flawed one.
func TestServiceControlledByCommands(t *testing.T) {
	for _, flaw := range []string{"none", "memory-store"} {
		t.Run(flaw, func(t *testing.T) {
			// Each flaw has its own instances, pid files and ports.
			t.Parallel()
			f := fixture{flaw: flaw, instances: 2}
			_, owned, _ := f.run(t, Options{Only: controlledChecks, Seed: 11})
			text := controlled(t, f)
			code, rep, out := runText(t, text, Options{Only: controlledChecks, Seed: 11})
			if got, want := verdictKinds(rep), verdictKinds(owned); !slices.Equal(got, want) {
				t.Fatalf("through target.control: %v, with target.command: %v (exit %d)\n%s", got, want, code, out)
			}
			for _, r := range rep.Results {
				if r.Verdict == "n/a" || r.Verdict == "error" || r.Verdict == "inconclusive" {
					t.Errorf("%s: %s (%s): every controlled check must run", r.ID, r.Verdict, r.Why)
				}
			}
		})
	}
}

// verdictKinds lists each check's verdict and its findings' kinds.
func verdictKinds(rep *report.Report) []string {
	var out []string
	for _, r := range rep.Results {
		var kinds []string
		for _, f := range r.Findings {
			kinds = append(kinds, f.Kind)
		}
		slices.Sort(kinds)
		out = append(out, fmt.Sprintf("%s %s %v", r.ID, r.Verdict, slices.Compact(kinds)))
	}
	return out
}

// controlled starts f's two instances outside idemcheck and returns f's
// config for them with target.control instead of target.command.
func controlled(t *testing.T, f fixture) string {
	t.Helper()
	pspPort, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	text := outside(t, f, fmt.Sprintf("http://127.0.0.1:%d", pspPort))
	return strings.Replace(text, "  fakepsp: true", fmt.Sprintf("  fakepsp: true\n  fakepsp_listen: 127.0.0.1:%d\n  fakepsp_secret_key: sk_test_user", pspPort), 1)
}

// outside starts f's two instances, charging at pspURL with key
// sk_test_user, as a deployment would, and returns f's config for them with
// target.control (shell commands on their pid files) instead of
// target.command.
func outside(t *testing.T, f fixture, pspURL string) string {
	t.Helper()
	dir := t.TempDir()
	ports := make([]int, 2)
	for i := range ports {
		var err error
		if ports[i], err = freeport.Get(); err != nil {
			t.Fatal(err)
		}
	}
	// start.sh PORT: one instance in its own process group, its pid in
	// DIR/PORT.pid; the instance's name is its port.
	script := fmt.Sprintf(`#!/bin/sh
cd %[1]q
PORT=$1 PSP_URL=%[2]s PSP_KEY=sk_test_user STATE_DIR=%[1]s/state INSTANCE=$1 \
  setsid %[3]q --flaw %[4]s --ttl 1h --lease 1s --hold 100ms >>"$1.log" 2>&1 &
echo $! > "$1.pid"
echo $! >> pids
`, dir, pspURL, paysvcBin, f.flaw)
	start := filepath.Join(dir, "start.sh")
	if err := os.WriteFile(start, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(filepath.Join(dir, "state"), 0o755)
	for _, p := range ports {
		if out, err := exec.Command("sh", start, strconv.Itoa(p)).CombinedOutput(); err != nil {
			t.Fatalf("start instance %d: %v: %s", p, err, out)
		}
	}
	t.Cleanup(func() {
		// Every instance this test started, by the pids start.sh wrote:
		// a restart's too, and an old one a failed restart left running.
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGCONT)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	pid := fmt.Sprintf(`$(cat %s/${INSTANCE}.pid)`, dir)
	control := fmt.Sprintf(`  control:
    instances: ["%d", "%d"]
    kill: [sh, -c, "kill -9 %[3]s"]
    pause: [sh, -c, "kill -STOP %[3]s"]
    resume: [sh, -c, "kill -CONT %[3]s"]
    restart: [sh, %[4]q, "${INSTANCE}"]
    timeout: 15s
`, ports[0], ports[1], pid, start)
	text := f.configText(t)
	text = strings.Replace(text, `base_urls: ["http://127.0.0.1:${PORT_0}", "http://127.0.0.1:${PORT_1}"]`,
		fmt.Sprintf(`base_urls: ["http://127.0.0.1:%d", "http://127.0.0.1:%d"]`, ports[0], ports[1]), 1)
	text = removeLine(text, "  command:")
	text = removeLine(text, "  instances:")
	text = removeLine(text, "  env:")
	return strings.Replace(text, "  start_timeout: 15s\n", "  start_timeout: 15s\n"+control, 1)
}
