package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
)

// TestCampaignParallelSeeds: one shard runs its two seeds at once against
// a target idemcheck starts per run; every seed is reported and merged,
// the check-then-insert service fails with its double charge in every seed
// that found it, and the JSON reports are the seeds' own.
func TestCampaignParallelSeeds(t *testing.T) {
	paysvc, _ := services(t)
	cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--", paysvc, "--flaw", "check-then-insert")
	quickQuiesce(t, cfg)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"run", "--config", cfg, "--chaos", "--duration", "3s", "--quiet", "--seeds", "1-2", "--parallel", "2", "--out", out}, &stdout, &stderr)
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != 1 || !strings.Contains(stdout.String(), "distinct finding(s) in") {
		t.Fatalf("exit %d, want 1 with the merged answer", code)
	}
	for _, seed := range []string{"1", "2"} {
		b, err := os.ReadFile(filepath.Join(out, "seed-"+seed+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Seed string `json:"seed"`
		}
		if err := json.Unmarshal(b, &rep); err != nil || rep.Seed != seed {
			t.Fatalf("seed-%s.json names seed %q (%v)", seed, rep.Seed, err)
		}
	}
	if !strings.Contains(stdout.String(), "double-charge") {
		t.Fatalf("the merged answer names no double-charge:\n%s", stdout.String())
	}
}

// TestCampaignParallelRefusesASharedDeployment: seeds at once against a
// service idemcheck does not start (a fixed address) would land one seed's
// faults on another's traffic: refused with the reason, exit 2.
func TestCampaignParallelRefusesASharedDeployment(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	text := strings.Replace(config.Starter, `"http://127.0.0.1:${PORT_0}"`, `"http://127.0.0.1:8080"`, 1)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"run", "--config", cfg, "--chaos", "--seeds", "1-4", "--parallel", "2", "--out", t.TempDir()}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "--parallel 2: seeds at once would share") || !strings.Contains(stderr.String(), "a fixed address") {
		t.Fatalf("exit %d, stderr %q; want 2 naming what is shared", code, stderr.String())
	}
	if c := dispatch([]string{"run", "--config", cfg, "--chaos", "--parallel", "2"}, &stdout, &stderr); c != 2 {
		t.Fatalf("--parallel without --seeds: exit %d, want 2", c)
	}
}
