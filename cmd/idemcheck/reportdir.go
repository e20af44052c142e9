package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// reportBase is where a run without --html writes its report, as demo does:
// one folder per run under the working directory, never a temp directory
// that piles up unseen.
const reportBase = "idemcheck-report"

// newReportDir makes base/<UTC time>-<random> for one run and points
// base/latest at it; the path it returns is the run's --html directory.
func newReportDir(base string, now time.Time) (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	name := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report directory: %w", err)
	}
	// A relative link, so the folder can be moved or archived whole; a
	// new link replaces the old one in one rename.
	tmp := filepath.Join(base, ".latest-"+name)
	if err := os.Symlink(name, tmp); err != nil {
		return "", fmt.Errorf("report directory: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(base, "latest")); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("report directory: %w", err)
	}
	return dir, nil
}
