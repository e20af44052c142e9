package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// paysvcPkg is the purpose-built correct payment service, built from the
// checkout the bench runs in.
const paysvcPkg = "./conform/testdata/services/paysvc"

// runVerdict times what a new user waits for: `idemcheck init --probe`
// against the purpose-built correct service, then a default `idemcheck run`
// of the config it wrote, from start to exit, each a child process of this
// binary. The run's JSON report says how much of that time was waits its
// design demands (the quiet period, settle periods, key windows, retry
// backoff), printed next to it.
func runVerdict(ctx context.Context, r *runner) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "idemcheck-bench-verdict-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	exe, cfg, err := probedPaysvc(ctx, root, dir, "none")
	if err != nil {
		return err
	}
	args := []string{"run", "--config", cfg, "--json", filepath.Join(dir, "run.json"), "--html", filepath.Join(dir, "html")}
	if r.o.Seed != 0 {
		args = append(args, "--seed", fmt.Sprint(r.o.Seed))
	}
	t0 := time.Now()
	_, out, err := childIn(ctx, dir, exe, args...)
	wall := time.Since(t0)
	if err != nil {
		return fmt.Errorf("idemcheck run against the correct service did not pass: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return err
	}
	v, err := readVerdictRun(b)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	r.logf("verdict run: seed %s, %d checks passed, %d n/a", v.Seed, v.Passed, v.NA)
	wait := v.wait("")
	r.row(fmt.Sprintf("time to a verdict: init --probe, then a default run against the correct service (%d checks pass)", v.Passed),
		fmt.Sprintf("%.1f s", wall.Seconds()), fmt.Sprintf("waits by design %.1f s (%s)", wait.Seconds(), v.waitsText()),
		fmt.Sprintf("%.2f", wall.Seconds()/wait.Seconds()))
	r.key("run_default_s", "%.1f", wall.Seconds())
	r.key("run_wait_s", "%.1f", wait.Seconds())
	r.key("run_quiet_s", "%.1f", v.wait(scenario.WaitQuiet).Seconds())
	r.key("run_settle_s", "%.1f", v.wait(scenario.WaitSettle).Seconds())
	r.key("run_backoff_s", "%.1f", v.wait(scenario.WaitBackoff).Seconds())
	r.key("run_window_s", "%.1f", v.wait(scenario.WaitWindow).Seconds())
	r.key("run_held_s", "%.1f", v.wait(scenario.WaitHeld).Seconds())
	r.key("run_other_s", "%.1f", max(wall-wait, 0).Seconds())
	r.key("run_seed", "%s", v.Seed)
	return nil
}

// probedPaysvc builds paysvc with flaw into dir and writes its config there
// with `init --probe`, as a new user would; it returns this binary, which
// runs the children, and the config.
func probedPaysvc(ctx context.Context, root, dir, flaw string) (exe, cfg string, err error) {
	svc := filepath.Join(dir, "paysvc")
	build := exec.CommandContext(ctx, "go", "build", "-o", svc, paysvcPkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build %s: %v\n%s", paysvcPkg, err, out)
	}
	if exe, err = os.Executable(); err != nil {
		return "", "", err
	}
	cfg = filepath.Join(dir, "idemcheck.yaml")
	if _, _, err := childIn(ctx, dir, exe, "init", "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz",
		"--caller", "Authorization: Bearer secret-token-u1", "--caller", "Authorization: Bearer secret-token-u2",
		"--config", cfg, "--", svc, "--flaw", flaw); err != nil {
		return "", "", fmt.Errorf("idemcheck init --probe: %w", err)
	}
	return exe, cfg, nil
}

// verdictRun is what the bench reads of a run's JSON report.
type verdictRun struct {
	Seed     string          `json:"seed"`
	ExitCode int             `json:"exit_code"`
	Waits    []scenario.Wait `json:"waits"`
	Results  []struct {
		ID      string `json:"id"`
		Verdict string `json:"verdict"`
	} `json:"results"`
	Passed, NA int `json:"-"`
}

// readVerdictRun refuses a report that does not show a passing run with at
// least one check passed and its waits recorded: a figure of a run that
// proved nothing would time nothing worth timing.
func readVerdictRun(b []byte) (*verdictRun, error) {
	var v verdictRun
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("the run's JSON report: %w", err)
	}
	var bad []string
	for _, res := range v.Results {
		switch res.Verdict {
		case string(scenario.Pass):
			v.Passed++
		case string(scenario.NA):
			v.NA++
		default:
			bad = append(bad, res.ID+" "+res.Verdict)
		}
	}
	switch {
	case v.ExitCode != 0 || len(bad) > 0:
		return nil, fmt.Errorf("the run against the correct service did not pass (exit %d): %s", v.ExitCode, strings.Join(bad, ", "))
	case v.Passed == 0:
		return nil, errors.New("the run against the correct service passed no check")
	case len(v.Waits) == 0:
		return nil, errors.New("the run's JSON report records no waits")
	}
	return &v, nil
}

// wait is the run's time waited for reason ("" for all reasons).
func (v *verdictRun) wait(reason string) time.Duration { return scenario.SumWaits(v.Waits, reason) }

func (v *verdictRun) waitsText() string {
	var parts []string
	for _, w := range v.Waits {
		parts = append(parts, fmt.Sprintf("%s %.1f s", w.Reason, w.Total.Seconds()))
	}
	return strings.Join(parts, ", ")
}

// moduleRoot finds the checkout of idemcheck the bench runs in (the current
// directory or one above it), whose paysvc it builds.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("module github.com/idemcheck/idemcheck\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("the verdict section builds the purpose-built correct service (" + paysvcPkg + ") from a checkout of idemcheck: run the bench from one")
		}
		dir = up
	}
}

// childIn is child run in dir.
func childIn(ctx context.Context, dir, exe string, args ...string) (*os.ProcessState, []byte, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, out, fmt.Errorf("%w\n%s", err, tail(out, 40))
	}
	return cmd.ProcessState, out, nil
}

// tail is the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
