package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/checks"
)

// TestShrinkAFailingSeed: a chaos seed that finds the check-then-insert
// service's double charge shrinks to at most a fifth of its intents, still
// failing with double-charge in 3 of 3 replays; the schedule file it writes
// replays with run --schedule and fails the same way.
func TestShrinkAFailingSeed(t *testing.T) {
	paysvc, _ := services(t)
	cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--", paysvc, "--flaw", "check-then-insert")
	quickQuiesce(t, cfg)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"run", "--config", cfg, "--chaos", "--duration", "3s", "--seed", "1", "--shrink", "--shrink-out", out}, &stdout, &stderr)
	t.Logf("exit %d\n%s\n%s", code, stdout.String(), lastLines(stderr.String(), 30))
	if code != 1 {
		t.Fatalf("shrink: exit %d, want 1 (the seed fails)", code)
	}
	m := regexp.MustCompile(`shrink: (\d+) intents -> (\d+) `).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatal("no size line")
	}
	before, _ := strconv.Atoi(m[1])
	after, _ := strconv.Atoi(m[2])
	if after < 1 || after*5 > before {
		t.Fatalf("%d intents shrunk to %d; want at least 1 and at most a fifth", before, after)
	}
	if !strings.Contains(stdout.String(), "still fails with double-charge in 3 of 3 replays") {
		t.Fatalf("the shrunk schedule does not fail 3 of 3:\n%s", stdout.String())
	}
	sched := filepath.Join(out, "schedule.json")
	f, plan, err := checks.ReadPlan(sched)
	if err != nil || f.Seed != 1 || len(plan) != after {
		t.Fatalf("schedule file: %v, seed %d, %d intents; want seed 1, %d", err, f.Seed, len(plan), after)
	}
	js := filepath.Join(t.TempDir(), "r.json")
	stdout.Reset()
	stderr.Reset()
	code = dispatch([]string{"run", "--config", cfg, "--quiet", "--chaos", "--schedule", sched, "--json", js}, &stdout, &stderr)
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("run --schedule: exit %d, no report: %v\n%s", code, err, lastLines(stderr.String(), 20))
	}
	var rep runReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rep.Results {
		for _, f := range r.Findings {
			kinds = append(kinds, f.Kind)
		}
	}
	if code != 1 || !slices.Contains(kinds, "double-charge") {
		t.Fatalf("run --schedule: exit %d, kinds %v; want 1 with double-charge", code, kinds)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// quickQuiesce shortens the probed config's quiet period before the final
// recount (30 s, for services idemcheck knows nothing of) to paysvc's
// need: it charges within its request, so the recount has nothing to wait
// for, and a shrink's dozens of runs each save the difference.
func quickQuiesce(t *testing.T, cfg string) {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`(?m)^(\s*quiesce:) 30s`).ReplaceAllString(string(b), "$1 1s")
	if s == string(b) {
		t.Fatal("the probed config has no quiesce: 30s to shorten")
	}
	if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
