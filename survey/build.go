package survey

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot finds the idemcheck module's root from dir upwards.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/idemcheck/idemcheck\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no idemcheck checkout at or above %s", dir)
		}
	}
}

// BuildIdemcheck builds the checkout's idemcheck into dir, stamped with the
// checkout's revision, which the table names.
func BuildIdemcheck(ctx context.Context, root, dir string) (bin, version string, err error) {
	version = Describe(ctx, root)
	bin = filepath.Join(dir, "idemcheck")
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X main.version="+version, "-o", bin, "./cmd/idemcheck")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build ./cmd/idemcheck: %v\n%s", err, out)
	}
	return bin, version, nil
}

// Describe is the checkout's revision (git describe --always --dirty), or
// "unknown" outside git.
func Describe(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// SurveyRevision is the last commit that changed survey/ (the findings.yaml
// a table written from kept reports reads), "-dirty" when survey/ has
// uncommitted changes: unlike Describe, it does not change when only the
// table it writes does.
func SurveyRevision(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "log", "-1", "--format=%h", "--", "survey").Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--", "survey").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "-dirty"
	}
	return rev
}
