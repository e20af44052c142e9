package logtail

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLinesIsTheEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Lines(p, 2); got != "line 4\nline 5" {
		t.Fatalf("Lines(2) = %q", got)
	}
	if got := Lines(p, 10); got != strings.TrimRight(b.String(), "\n") {
		t.Fatalf("Lines(10) = %q", got)
	}
	if got := Indented(p, 2, "  "); got != "  line 4\n  line 5\n" {
		t.Fatalf("Indented = %q", got)
	}
}

// A log longer than the window: only its end is read, and the line the
// window cuts is dropped, never shown half.
func TestLinesOfALongLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := 0; b.Len() < 3*window; i++ {
		fmt.Fprintf(&b, "line %06d %s\n", i, strings.Repeat("x", 50))
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	got := strings.Split(Lines(p, 1<<20), "\n")
	if got[len(got)-1] != all[len(all)-1] {
		t.Fatalf("last line %q, want %q", got[len(got)-1], all[len(all)-1])
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "line ") || len(l) != len(all[0]) {
			t.Fatalf("a cut line was kept: %q", l)
		}
	}
}

func TestLinesOfAMissingFileSaysSo(t *testing.T) {
	got := Lines("/nonexistent/idemcheck.log", 5)
	if !strings.Contains(got, "/nonexistent/idemcheck.log") || !strings.Contains(got, "no such file") {
		t.Fatalf("Lines of a missing file = %q", got)
	}
}
