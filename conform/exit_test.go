package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/freeport"
)

func TestTargetDownExits3WithOneLine(t *testing.T) {
	t.Parallel()
	// Held for the test: a port closed again could be the next port a
	// parallel test's server takes, which then answers.
	addr, release, err := freeport.Refusing()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = release() }()
	text := strings.Replace(config.Starter, `base_urls: ["http://127.0.0.1:${PORT_0}"]`, fmt.Sprintf(`base_urls: ["http://%s"]`, addr), 1)
	text = strings.Replace(text, `  command: ["./my-payment-service"]`+"\n", "", 1)
	text = strings.Replace(text, "  instances: 1            # >1 starts replicas (the replicas check)\n", "", 1)
	p := filepath.Join(t.TempDir(), "down.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code, rep := Run(context.Background(), Options{Config: p, Seed: 1, Stdout: &out, Stderr: &errb})
	if code != ExitUnreachable || rep != nil {
		t.Fatalf("exit %d, want 3\n%s", code, errb.String())
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if strings.Contains(l, "unreachable") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], addr) || !strings.Contains(lines[0], "connection refused") {
		t.Fatalf("want one line naming %s and the cause, got:\n%s", addr, errb.String())
	}
}

func TestBrokenConfigExits2WithFileLineField(t *testing.T) {
	t.Parallel()
	text := strings.Replace(config.Starter, "timeout: 10s", "timeout: ten seconds", 1)
	p := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(text[:strings.Index(text, "timeout: ten")], "\n")
	var errb bytes.Buffer
	code, _ := Run(context.Background(), Options{Config: p, Stderr: &errb})
	want := fmt.Sprintf("%s:%d: timeout: ", p, line)
	if code != ExitUsage || !strings.Contains(errb.String(), want) {
		t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errb.String(), want)
	}
}

func TestUnknownOnlyIsUsageError(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(config.Starter), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code, _ := Run(context.Background(), Options{Config: p, Only: []string{"Z9"}, Stderr: &errb})
	if code != ExitUsage || !strings.Contains(errb.String(), `"Z9"`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestScheduleIsAFunctionOfTheSeed(t *testing.T) {
	names := faults.Names(faults.All())
	a := checks.Schedule(7, names, 2, 40)
	b := checks.Schedule(7, names, 2, 40)
	c := checks.Schedule(8, names, 2, 40)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave two schedules")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
	seen := map[string]bool{}
	for _, p := range a {
		seen[p.Fault] = true
	}
	if len(seen) < 12 {
		t.Errorf("40 intents used only %d fault kinds: %v", len(seen), seen)
	}
}

func TestChaosSameSeedSameScheduleAndCorrectServicePasses(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "none", env: `PSP_URL: "http://${PSP_ADDR}"`, extra: pspLink}
	var scheds [][]string
	for i := 0; i < 2; i++ {
		code, rep, _ := f.run(t, Options{Chaos: true, Seed: 1234567, Duration: 2 * 1e9, Quiet: true})
		if rep == nil {
			t.Fatalf("chaos run %d did not start (exit %d)", i, code)
		}
		if code != ExitPass {
			t.Errorf("chaos run %d against the correct service: exit %d", i, code)
		}
		scheds = append(scheds, rep.Schedule)
	}
	if len(scheds[0]) == 0 || !slices.Equal(scheds[0], scheds[1]) {
		t.Fatalf("same seed, different schedules:\n%v\n%v", scheds[0], scheds[1])
	}
}

func TestChaosCatchesNewPSPKeyPerAttempt(t *testing.T) {
	t.Parallel()
	f := fixture{flaw: "new-psp-key"}
	// The schedule is narrowed to the fault this flaw turns into a second
	// charge, so the spec does not depend on which faults a seed draws.
	code, rep, _ := f.run(t, Options{Chaos: true, Seed: 99, Duration: 3 * 1e9, Quiet: true, ChaosFaults: []string{"psp-reply-lost"}})
	if code != ExitViolation || !kinds(rep)["double-charge"] {
		t.Fatalf("exit %d kinds %v, want 1 and double-charge", code, kinds(rep))
	}
}

func TestReportsCarryBothLevelsAndRedact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := fixture{flaw: "reexec-after-5xx"}
	code, rep, _ := f.run(t, Options{Only: []string{"S-5xx-after-charge", "P-conflict"}, JSON: filepath.Join(dir, "r.json"),
		JUnit: filepath.Join(dir, "r.xml"), HTML: filepath.Join(dir, "html")})
	if code != ExitViolation {
		t.Fatalf("exit %d, want 1", code)
	}
	if rep.HTMLPath == "" {
		t.Fatal("no HTML path")
	}
	for _, name := range []string{"r.json", "r.xml", "html/index.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, want := range []string{"double-charge", "protocol", "safety"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(s, "secret-token-u1") {
			t.Errorf("%s leaks the Authorization value", name)
		}
		if name != "r.xml" && !strings.Contains(s, "[redacted]") {
			t.Errorf("%s shows no redacted Authorization", name)
		}
	}
	var ju struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "r.xml"))
	if err := xml.Unmarshal(b, &ju); err != nil || len(ju.Suites) != 2 {
		t.Fatalf("JUnit does not parse into two suites: %v", err)
	}
	// The safety suite holds the check and the final recount.
	if s := ju.Suites[0]; s.Name != "idemcheck.safety" || s.Tests != 2 || s.Failures != 1 {
		t.Errorf("safety suite %+v, want 2 tests, 1 failure", s)
	}
	var js struct {
		Results []struct {
			ID, Level, Verdict string
		} `json:"results"`
		ExitCode int `json:"exit_code"`
	}
	b, _ = os.ReadFile(filepath.Join(dir, "r.json"))
	if err := json.Unmarshal(b, &js); err != nil || js.ExitCode != 1 || len(js.Results) != 3 {
		t.Fatalf("JSON report: %v %+v", err, js)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "html/index.html"))
	if !strings.Contains(string(html), "PSP ground truth") || !strings.Contains(string(html), ":charge") {
		t.Errorf("HTML lacks the PSP ground truth beside the answers")
	}
	if !strings.Contains(string(html), "porcupine picture: <a href=") {
		t.Errorf("HTML lacks the porcupine picture link")
	}
	hf, err := os.Open(filepath.Join(dir, "html/history/S-5xx-after-charge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	h, err := history.ReadJSONL(hf)
	if err != nil || len(h) == 0 {
		t.Fatalf("saved history does not read back: %v (%d ops)", err, len(h))
	}
	if res := checker.Check(h, checker.CheckOptions{}); len(res.ByKind("double-charge")) == 0 {
		t.Errorf("re-checking the saved history offline does not find the double charge: %+v", res.Violations)
	}
}
