package conform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A target that crashes at start keeps its stdout and stderr in the report
// directory, the error names that file, and it is still there after the run.
func TestTargetCrashKeepsItsOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts func(dir string) Options
		logs string
	}{
		{"html", func(dir string) Options { return Options{HTML: filepath.Join(dir, "report")} }, "report/target-logs"},
		{"json", func(dir string) Options { return Options{JSON: filepath.Join(dir, "out", "r.json")} }, "out/target-logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			f := fixture{command: `"sh", "-c", "echo crash-stdout-line; echo crash-stderr-line >&2; exit 3"`}
			code, rep, out := runText(t, f.configText(t), tc.opts(dir))
			if code != ExitUnreachable || rep != nil {
				t.Fatalf("exit %d (report %v), want %d and no report", code, rep != nil, ExitUnreachable)
			}
			log := filepath.Join(dir, tc.logs, "target-0.log")
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("the crashed target's output is not kept: %v", err)
			}
			for _, want := range []string{"crash-stdout-line", "crash-stderr-line"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("%s lacks %q: %q", log, want, b)
				}
				if !strings.Contains(out, want) {
					t.Errorf("the run's output does not show the target's last line %q", want)
				}
			}
			if !strings.Contains(out, log) {
				t.Errorf("the error does not name the kept log %s:\n%s", log, out)
			}
		})
	}
}

// A run with --html keeps the target's output in DIR/target-logs, and the
// report names those files.
func TestTargetOutputKeptWithTheReport(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "report")
	code, rep, _ := fixture{flaw: "none"}.run(t, Options{Only: []string{"P-once"}, HTML: dir, Quiet: true})
	if rep == nil || code != ExitPass {
		t.Fatalf("exit %d", code)
	}
	want := filepath.Join(dir, "target-logs", "target-0.log")
	if len(rep.TargetLogs) != 1 || rep.TargetLogs[0] != want {
		t.Errorf("report names target logs %v, want [%s]", rep.TargetLogs, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Size() == 0 {
		t.Errorf("target log %s missing or empty after the run: %v", want, err)
	}
}

// An outcomes.payment_id path that matches nothing in a success answer is
// a config error at the first success: exit 2, naming the path, the file's
// line and the answer; no check runs on.
func TestWrongPaymentIDPath(t *testing.T) {
	t.Parallel()
	text := strings.Replace(fixture{flaw: "none"}.configText(t), "  payment_id: id\n", "  payment_id: data.id\n", 1)
	if !strings.Contains(text, "payment_id: data.id") {
		t.Fatal("the fixture config changed")
	}
	code, rep, out := runText(t, text, Options{Only: []string{"A2", "A6"}})
	if code != ExitUsage || rep != nil {
		t.Fatalf("exit %d (report %v), want %d and no report", code, rep != nil, ExitUsage)
	}
	for _, want := range []string{"outcomes.payment_id", `"data.id" matches nothing in the first success answer`, "-> 201 {", `"id":"pay_`} {
		if !strings.Contains(out, want) {
			t.Errorf("the error lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[1/2] A2") {
		t.Errorf("checks ran on after the config error:\n%s", out)
	}
}
