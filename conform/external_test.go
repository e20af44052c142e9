package conform

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/internal/freeport"
)

// A service the user starts: configured beforehand with a fixed fakepsp
// address and key, which idemcheck then listens on. Process faults are n/a.
func TestServiceStartedByTheUser(t *testing.T) {
	t.Parallel()
	svcPort, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	pspPort, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(paysvcBin, "--flaw", "none", "--hold", "50ms")
	cmd.Env = []string{fmt.Sprintf("PORT=%d", svcPort), fmt.Sprintf("PSP_URL=http://127.0.0.1:%d", pspPort),
		"PSP_KEY=sk_test_user", "STATE_DIR=" + t.TempDir()}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	f := fixture{flaw: "none"}
	text := f.configText(t)
	text = strings.Replace(text, `base_urls: ["http://127.0.0.1:${PORT_0}"]`, fmt.Sprintf(`base_urls: ["http://127.0.0.1:%d"]`, svcPort), 1)
	text = removeLine(text, "  command:")
	text = removeLine(text, "  instances:")
	text = strings.Replace(text, "  fakepsp: true", fmt.Sprintf("  fakepsp: true\n  fakepsp_listen: 127.0.0.1:%d\n  fakepsp_secret_key: sk_test_user", pspPort), 1)
	code, rep, _ := runText(t, text, Options{Only: []string{"A1", "A2", "S-restart"}, Seed: 3})
	if code != ExitPass {
		t.Fatalf("exit %d", code)
	}
	for _, r := range rep.Results {
		want := scenario.Pass
		if r.ID == "S-restart" {
			want = scenario.NA
		}
		if r.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", r.ID, r.Verdict, r.Why, want)
		}
	}
	if na := rep.SafetyNA(); len(na) != 1 || !strings.HasPrefix(na[0], "S-restart (needs target.command") {
		t.Errorf("safety n/a summary %v, want S-restart and why", na)
	}
	// A safety check that could not run fails the run when all are required,
	// or when the config requires it by ID.
	code, _, out := runText(t, text, Options{Only: []string{"A2", "S-restart"}, Seed: 4, RequireAllSafety: true})
	if code != ExitViolation || !strings.Contains(out, "N/A (required)") {
		t.Errorf("--require-all-safety with S-restart n/a: exit %d, want 1 and S-restart shown as required", code)
	}
	code, _, _ = runText(t, text+"required: [S-restart]\n", Options{Only: []string{"A2", "S-restart"}, Seed: 5})
	if code != ExitViolation {
		t.Errorf("required: [S-restart] with S-restart n/a: exit %d, want 1", code)
	}
}

func removeLine(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
