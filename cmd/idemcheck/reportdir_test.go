package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Each run gets its own folder and latest names the newest; nothing goes to
// a temp directory.
func TestNewReportDirPerRunWithLatest(t *testing.T) {
	base := filepath.Join(t.TempDir(), reportBase)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	first, err := newReportDir(base, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newReportDir(base, now)
	if err != nil {
		t.Fatal(err)
	}
	if first == second || filepath.Dir(first) != base || filepath.Dir(second) != base {
		t.Fatalf("folders %s and %s, want two apart under %s", first, second, base)
	}
	link, err := os.Readlink(filepath.Join(base, "latest"))
	if err != nil || link != filepath.Base(second) {
		t.Fatalf("latest -> %q (%v), want %s", link, err, filepath.Base(second))
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 3 {
		t.Fatalf("%d entries under %s, want two folders and latest", len(entries), base)
	}
}
