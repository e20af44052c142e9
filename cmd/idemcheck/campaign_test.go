package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestCampaignShardsMerge: a campaign of 8 seeds in four shards, each run
// by its own idemcheck process as a Kubernetes Indexed Job's pods would
// (JOB_COMPLETION_INDEX, IDEMCHECK_SHARDS), then merged: on a service that
// checks then inserts, the one bug appears once with the seeds that found
// it and every seed is accounted for; on the correct service every seed
// passes.
func TestCampaignShardsMerge(t *testing.T) {
	paysvc, _ := services(t)
	bin := filepath.Join(t.TempDir(), "idemcheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build idemcheck: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		flaw string
		exit int
	}{{"check-then-insert", 1}, {"none", 0}} {
		t.Run(tc.flaw, func(t *testing.T) {
			cfg := probeInit(t, "--probe", "http://127.0.0.1:${PORT}", "--ready", "/healthz", "--caller", tok1, "--caller", tok2, "--", paysvc, "--flaw", tc.flaw)
			quickQuiesce(t, cfg)
			out := t.TempDir()
			var wg sync.WaitGroup
			codes := make([]int, 4)
			logs := make([]bytes.Buffer, 4)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(bin, "run", "--config", cfg, "--chaos", "--duration", "4s", "--quiet", "--seeds", "1-8", "--out", filepath.Join(out, fmt.Sprintf("shard-%d", i)))
					cmd.Env = append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "IDEMCHECK_SHARDS=4")
					cmd.Stdout, cmd.Stderr = &logs[i], &logs[i]
					err := cmd.Run()
					codes[i] = cmd.ProcessState.ExitCode()
					if err != nil && codes[i] < 0 {
						logs[i].WriteString(err.Error())
					}
				}()
			}
			wg.Wait()
			for i := range 4 {
				t.Logf("shard %d: exit %d\n%s", i, codes[i], logs[i].String())
			}
			merged := filepath.Join(t.TempDir(), "campaign.json")
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{"merge", "--json", merged, "--junit", filepath.Join(t.TempDir(), "j.xml"), "--html", t.TempDir(), out}, &stdout, &stderr)
			t.Logf("merge: exit %d\n%s%s", code, stdout.String(), stderr.String())
			var c struct {
				Seeds    int      `json:"seeds"`
				Passed   []string `json:"-"`
				Findings []struct {
					Check, Kind string
					Seeds       []uint64
				} `json:"findings"`
				Failed   []uint64 `json:"failed"`
				Unjudged []any    `json:"unjudged"`
			}
			b, err := os.ReadFile(merged)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if code != tc.exit || c.Seeds != 8 || len(c.Unjudged) != 0 {
				t.Fatalf("merge exit %d, %d seeds, unjudged %v; want exit %d, 8 seeds, none unjudged", code, c.Seeds, c.Unjudged, tc.exit)
			}
			if tc.flaw == "none" {
				if len(c.Findings) != 0 || len(c.Failed) != 0 || slices.Contains(codes, 1) {
					t.Fatalf("the correct service: findings %+v, failed seeds %v, shard exits %v; want none", c.Findings, c.Failed, codes)
				}
				return
			}
			// check-then-insert: concurrent copies both pass the check and
			// both charge under their own PSP keys (double-charge), and are
			// answered with two payment ids (inconsistent-answer): the bug
			// appears once per kind, with every seed that found it.
			var seeds []uint64
			var kinds []string
			for _, f := range c.Findings {
				if f.Check != "chaos" || !slices.Contains([]string{"double-charge", "inconsistent-answer"}, f.Kind) {
					t.Errorf("finding %s %s; want only chaos double-charge or inconsistent-answer", f.Check, f.Kind)
				}
				kinds = append(kinds, f.Kind)
				seeds = append(seeds, f.Seeds...)
			}
			if slices.Sort(kinds); !slices.Contains(kinds, "double-charge") || len(slices.Compact(kinds)) != len(c.Findings) {
				t.Errorf("kinds %v: want double-charge, each kind once", kinds)
			}
			slices.Sort(seeds)
			if seeds = slices.Compact(seeds); !slices.Equal(seeds, c.Failed) || len(seeds) == 0 {
				t.Fatalf("the findings' seeds %v are not the failed seeds %v", seeds, c.Failed)
			}
			if !strings.Contains(stdout.String(), "distinct finding(s) in") {
				t.Fatalf("merge printed no verdict line:\n%s", stdout.String())
			}
		})
	}
}
