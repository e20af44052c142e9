package ci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// actionRun is one use of the composite action (action.yml).
type actionRun struct {
	code      int
	outputs   map[string]string
	reportDir string
	artifacts []string
}

// runAction runs action.yml's steps as a runner would: each `run:` script
// with its ${{ }} expressions filled from the inputs (defaults, then the
// caller's `with:`), in the caller's workspace; a failed step skips the
// next ones unless they run `if: always()`. The build step builds idemcheck
// from this checkout exactly as written. Uploads are checked, not sent.
func runAction(t *testing.T, ws, job string, with map[string]any, extra ...map[string]string) actionRun {
	t.Helper()
	action := readYAML(t, "../action.yml")
	github := map[string]string{"github.action_path": repoRoot, "github.run_id": "4242", "github.job": job,
		"strategy.job-index": "0", "github.workspace": ws}
	for _, m := range extra {
		for k, v := range m {
			github[k] = v // a matrix job's own: matrix.*, strategy.job-index
		}
	}
	vars := map[string]string{}
	for k, v := range github {
		vars[k] = v
	}
	inputs, _ := get(action, "inputs").(map[string]any)
	for name, in := range inputs {
		vars["inputs."+name] = str(get(in, "default"))
	}
	for name, v := range with {
		if _, ok := inputs[name]; !ok {
			t.Errorf("the example passes input %q, which action.yml does not declare", name)
		}
		vars["inputs."+name] = expand(t, str(v), github)
		if name == "args" {
			vars["inputs."+name] = shortChaos(t, vars["inputs."+name])
		}
	}
	res := actionRun{code: 0, outputs: map[string]string{}, reportDir: filepath.Join(ws, vars["inputs.report-dir"])}
	temp := t.TempDir()
	steps, _ := get(action, "runs", "steps").([]any)
	for _, st := range steps {
		if res.code != 0 && !strings.Contains(str(get(st, "if")), "always()") {
			continue
		}
		uses := str(get(st, "uses"))
		switch {
		case str(get(st, "run")) != "":
			out := filepath.Join(temp, "github_output")
			_ = os.Remove(out)
			code, _ := shell(t, ws, expand(t, str(get(st, "run")), vars),
				[]string{"RUNNER_TEMP=" + temp, "GITHUB_OUTPUT=" + out, "GITHUB_WORKSPACE=" + ws, "GITHUB_ACTION_PATH=" + repoRoot})
			if b, err := os.ReadFile(out); err == nil {
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if k, v, ok := strings.Cut(l, "="); ok {
						res.outputs[k] = v
					}
				}
			}
			if code != 0 {
				res.code = code
			}
		case strings.HasPrefix(uses, "actions/upload-artifact@"):
			name := expand(t, str(get(st, "with", "name")), vars)
			p := filepath.Join(ws, expand(t, str(get(st, "with", "path")), vars))
			if ents, err := os.ReadDir(p); err != nil || len(ents) == 0 {
				t.Errorf("upload step: %s is missing or empty (%v)", p, err)
			}
			res.artifacts = append(res.artifacts, name)
		case strings.HasPrefix(uses, "actions/setup-go@"):
			// The runner's Go; the test's own toolchain stands in.
		default:
			t.Errorf("action.yml step %v: the test does not know how to run it", st)
		}
	}
	return res
}

// idemcheckSteps are the workflow's steps that use the action.
func idemcheckSteps(t *testing.T, job any) []map[string]any {
	t.Helper()
	var out []map[string]any
	steps, _ := get(job, "steps").([]any)
	for _, st := range steps {
		if strings.HasPrefix(str(get(st, "uses")), "idemcheck/idemcheck@") {
			w, _ := get(st, "with").(map[string]any)
			out = append(out, w)
		} else if strings.Contains(str(get(st, "run")), "idemcheck") {
			t.Errorf("step %v runs idemcheck outside the action: the test does not run it", get(st, "name"))
		}
	}
	return out
}

// TestGitHubActionsExample runs every idemcheck step of the GitHub Actions
// example through action.yml against the correct fixture service: each exits
// 0 and writes the HTML, JUnit and JSON reports it uploads and the JUnit
// step publishes, under artifact names that do not collide.
func TestGitHubActionsExample(t *testing.T) {
	t.Parallel()
	paysvc := fixtureService(t)
	wf := readYAML(t, "examples/github-actions.yml")
	if str(get(wf, "permissions", "checks")) != "write" || str(get(wf, "permissions", "contents")) != "read" {
		t.Errorf("permissions %v: the JUnit step needs checks: write (and the checkout contents: read)", get(wf, "permissions"))
	}
	jobs, _ := get(wf, "jobs").(map[string]any)
	if len(jobs) == 0 {
		t.Fatal("no jobs in the example")
	}
	for name, job := range jobs {
		ws := workspace(t, paysvc, "none")
		steps := idemcheckSteps(t, job)
		if len(steps) < 2 {
			t.Errorf("job %s: %d idemcheck steps, want the run and the chaos one", name, len(steps))
		}
		artifacts := map[string]bool{}
		for i, with := range steps {
			r := runAction(t, ws, name, with)
			if r.code != 0 || r.outputs["exit-code"] != "0" {
				t.Errorf("job %s, idemcheck step %d (%v): exit %d, output exit-code %q; want 0", name, i+1, with, r.code, r.outputs["exit-code"])
			}
			reportsIn(t, r.reportDir, filepath.Join(ws, r.outputs["junit"]), filepath.Join(r.reportDir, "idemcheck.json"), 0)
			for _, a := range r.artifacts {
				if artifacts[a] {
					t.Errorf("job %s: two uploads named %q (upload-artifact@v4 refuses the second)", name, a)
				}
				artifacts[a] = true
			}
		}
		steps2, _ := get(job, "steps").([]any)
		for _, st := range steps2 {
			if !strings.HasPrefix(str(get(st, "uses")), "mikepenz/action-junit-report@") {
				continue
			}
			for _, p := range strings.Fields(str(get(st, "with", "report_paths"))) {
				if _, err := os.Stat(filepath.Join(ws, p)); err != nil {
					t.Errorf("the JUnit step publishes %s, which no step wrote: %v", p, err)
				}
			}
		}
	}
}

// TestGitHubActionFailsOnAViolation: the example's gate step against a
// broken service exits 1, says so in its outputs, and still uploads its reports.
func TestGitHubActionFailsOnAViolation(t *testing.T) {
	t.Parallel()
	paysvc := fixtureService(t)
	wf := readYAML(t, "examples/github-actions.yml")
	jobs, _ := get(wf, "jobs").(map[string]any)
	for name, job := range jobs {
		ws := workspace(t, paysvc, "check-then-insert")
		steps := idemcheckSteps(t, job)
		if len(steps) == 0 {
			t.Fatalf("job %s has no idemcheck step", name)
		}
		r := runAction(t, ws, name, steps[0])
		if r.code != 1 || r.outputs["exit-code"] != "1" {
			t.Errorf("exit %d, output exit-code %q; want 1", r.code, r.outputs["exit-code"])
		}
		if len(r.artifacts) != 1 {
			t.Errorf("uploads %v after a failing run, want the report upload (if: always())", r.artifacts)
		}
		reportsIn(t, r.reportDir, filepath.Join(ws, r.outputs["junit"]), filepath.Join(r.reportDir, "idemcheck.json"), 1)
	}
}

// TestGitHubActionCheckCommand: command: check checks a recorded history.
func TestGitHubActionCheckCommand(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	hist, _ := filepath.Abs("../checker/testdata/double-charge.jsonl")
	r := runAction(t, ws, "offline", map[string]any{"command": "check", "config": hist, "report-dir": "history-report"})
	if r.code != 1 || r.outputs["exit-code"] != "1" {
		t.Errorf("check of a double charge: exit %d, output %q; want 1", r.code, r.outputs["exit-code"])
	}
	for _, p := range []string{"junit.xml", "idemcheck.json"} {
		if _, err := os.Stat(filepath.Join(r.reportDir, p)); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}
