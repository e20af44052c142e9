package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var reportFlagRE = regexp.MustCompile(`--(junit|json|html) (\S+)`)

// TestGitLabCIExample runs the idemcheck job's script of the GitLab CI
// example line by line, as written, in a workspace holding the fixture
// config: only `git clone` is replaced (by a link to this checkout, which
// the next line builds from). Each line must exit 0, as the job stops at
// the first that does not, and the artifacts it keeps must exist.
func TestGitLabCIExample(t *testing.T) {
	t.Parallel()
	paysvc := fixtureService(t)
	gl := readYAML(t, "examples/gitlab-ci.yml")
	job := get(gl, "idemcheck")
	script, _ := get(job, "script").([]any)
	if len(script) == 0 {
		t.Fatal("no idemcheck job script in the example")
	}
	if get(job, "services") != nil {
		t.Errorf("the idemcheck job uses services: containers, which cannot reach fakepsp on loopback")
	}
	ws := workspace(t, paysvc, "none")
	env := []string{"CI_PROJECT_DIR=" + ws, "CI_PIPELINE_ID=4242"}
	vars, _ := get(gl, "variables").(map[string]any)
	for k, v := range vars {
		// GOPATH and GOCACHE point the runner's cache into the project dir;
		// here they would only force a cold build and module download.
		if k != "GOPATH" && k != "GOCACHE" {
			env = append(env, k+"="+os.Expand(str(v), func(n string) string {
				if n == "CI_PROJECT_DIR" {
					return ws
				}
				return os.Getenv(n)
			}))
		}
	}
	runs := 0
	for _, l := range script {
		line := strings.TrimSpace(str(l))
		if strings.HasPrefix(line, "git clone") {
			if !strings.Contains(line, " .idemcheck") {
				t.Fatalf("the clone line no longer clones into .idemcheck: %s", line)
			}
			if err := os.Symlink(repoRoot, filepath.Join(ws, ".idemcheck")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		code, _ := shell(t, ws, shortChaos(t, line), env)
		if code != 0 {
			t.Fatalf("the job stops at %q: exit %d", line, code)
		}
		if !strings.Contains(line, "idemcheck run") {
			continue
		}
		runs++
		flags := map[string]string{}
		for _, m := range reportFlagRE.FindAllStringSubmatch(line, -1) {
			flags[m[1]] = filepath.Join(ws, m[2])
		}
		if len(flags) != 3 {
			t.Errorf("%q writes %d of the three reports (HTML, JUnit, JSON)", line, len(flags))
			continue
		}
		reportsIn(t, flags["html"], flags["junit"], flags["json"], 0)
	}
	if runs < 2 {
		t.Errorf("%d idemcheck run lines, want the run and the chaos one", runs)
	}
	paths, _ := get(job, "artifacts", "paths").([]any)
	junits, _ := get(job, "artifacts", "reports", "junit").([]any)
	if str(get(job, "artifacts", "when")) != "always" {
		t.Errorf("artifacts are kept only on success: want when: always")
	}
	for _, p := range append(paths, junits...) {
		if ents, err := os.Stat(filepath.Join(ws, str(p))); err != nil || (ents.IsDir() && empty(filepath.Join(ws, str(p)))) {
			t.Errorf("artifact %s missing or empty: %v", p, err)
		}
	}
	if cache := get(gl, "cache", "paths"); cache == nil {
		t.Errorf("no cache: every pipeline downloads and builds from scratch")
	}
}

func empty(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err != nil || len(ents) == 0
}
