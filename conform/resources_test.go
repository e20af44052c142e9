package conform

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/resources"
)

// TestSampleResourcesWritesTheCSVAndTheGrowth: --resources samples
// idemcheck and the process it started, and says where and what grew.
func TestSampleResourcesWritesTheCSVAndTheGrowth(t *testing.T) {
	dir := t.TempDir()
	p, err := faults.StartProcess("sleeper", exec.Command("sleep", "30"), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Kill() }()
	var errb bytes.Buffer
	o := Options{Resources: filepath.Join(dir, "res.csv"), ResourceEvery: 50 * time.Millisecond, Stderr: &errb}
	stop := sampleResources(o, &targetRun{procs: []*faults.Process{p}})
	time.Sleep(200 * time.Millisecond) // a few ticks of the sampler, whose count is not asserted
	lines := stop()
	b, err := os.ReadFile(o.Resources)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	if rows[0] != resources.Header || len(rows) < 3 {
		t.Fatalf("csv:\n%s", b)
	}
	for _, r := range rows[1:] {
		if f := strings.Split(r, ","); f[5] != "1" {
			t.Fatalf("row %q: child_procs %s, want 1 (the sleeper)", r, f[5])
		}
	}
	if len(lines) != 3 || !strings.Contains(lines[0], o.Resources) || !strings.HasPrefix(lines[1], "growth from ") || !strings.HasPrefix(lines[2], "trend ") {
		t.Fatalf("report lines %q", lines)
	}
	if !strings.Contains(errb.String(), "resources: growth from ") || !strings.Contains(errb.String(), "resources: trend ") {
		t.Fatalf("stderr lacks the growth or the trend line:\n%s", errb.String())
	}
}

func TestNoResourcesFlagSamplesNothing(t *testing.T) {
	if lines := sampleResources(Options{}, &targetRun{})(); lines != nil {
		t.Fatalf("lines %q without --resources", lines)
	}
}
