package ci

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var seedsRange = regexp.MustCompile(`--seeds [0-9]+-[0-9]+`)

// TestGitHubActionsCampaignExample runs the campaign example as GitHub would:
// every matrix shard's step through action.yml (concurrently, each in its
// own workspace, as on its own runner), their uploads downloaded as
// download-artifact@v4 lays them out (one folder per artifact), and the
// merge job's step over them. The seeds and the chaos length are narrowed
// for the test's time (1-8, 2s); everything else is the file as written.
// Against the check-then-insert service the merged answer names the double
// charge once with the seeds that found it, and accounts for every seed.
func TestGitHubActionsCampaignExample(t *testing.T) {
	t.Parallel()
	paysvc := fixtureService(t)
	wf := readYAML(t, "examples/github-actions-campaign.yml")
	shardJob, mergeJob := get(wf, "jobs", "shard"), get(wf, "jobs", "merge")
	if shardJob == nil || mergeJob == nil {
		t.Fatal("the example needs a shard job and a merge job")
	}
	if str(get(mergeJob, "needs")) != "shard" || !strings.Contains(str(get(mergeJob, "if")), "always()") {
		t.Errorf("merge: needs %v, if %v; want needs: shard and if: always() (a failing shard is the reason to merge)", get(mergeJob, "needs"), get(mergeJob, "if"))
	}
	if get(shardJob, "strategy", "fail-fast") != false {
		t.Error("shard: strategy.fail-fast must be false, or the first shard to find a bug cancels the rest")
	}
	matrix, _ := get(shardJob, "strategy", "matrix", "shard").([]any)
	steps := idemcheckSteps(t, shardJob)
	if len(steps) != 1 || len(matrix) == 0 {
		t.Fatalf("shard: %d idemcheck steps, matrix %v; want one step and a shard list", len(steps), matrix)
	}
	args := str(steps[0]["args"])
	if want := fmt.Sprintf("--shard ${{ matrix.shard }}/%d", len(matrix)); !strings.Contains(args, want) {
		t.Fatalf("shard args %q lack %q: the shard count must be the matrix's", args, want)
	}
	for i, v := range matrix {
		if fmt.Sprint(v) != fmt.Sprint(i) {
			t.Fatalf("matrix.shard %v: want 0..%d in order", matrix, len(matrix)-1)
		}
	}
	// The test's narrowing: 8 seeds of 2 s.
	with := map[string]any{}
	for k, v := range steps[0] {
		with[k] = v
	}
	with["args"] = strings.Replace(seedsRange.ReplaceAllString(args, "--seeds 1-8"), "--duration 20s", "--duration 2s", 1)
	dl := filepath.Join(t.TempDir(), "merge-ws")
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range matrix {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := workspace(t, paysvc, "check-then-insert")
			r := runAction(t, ws, "shard", with, map[string]string{"matrix.shard": fmt.Sprint(i), "strategy.job-index": fmt.Sprint(i)})
			if r.code != 1 {
				t.Errorf("shard %d: exit %d, want 1 (its seeds find the bug)", i, r.code)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(r.artifacts) != 1 {
				t.Errorf("shard %d: uploads %v, want one", i, r.artifacts)
				return
			}
			// download-artifact@v4 with a pattern: path/<artifact name>/...
			if err := os.CopyFS(filepath.Join(dl, "shards", r.artifacts[0]), os.DirFS(r.reportDir)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ms := idemcheckSteps(t, mergeJob)
	if len(ms) != 1 {
		t.Fatalf("merge: %d idemcheck steps, want 1", len(ms))
	}
	r := runAction(t, dl, "merge", ms[0])
	if r.code != 1 || r.outputs["exit-code"] != "1" {
		t.Errorf("merge: exit %d, output %q; want 1", r.code, r.outputs["exit-code"])
	}
	b, err := os.ReadFile(filepath.Join(r.reportDir, "campaign.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Seeds    int      `json:"seeds"`
		Failed   []uint64 `json:"failed"`
		Unjudged []any    `json:"unjudged"`
		Findings []struct {
			Kind  string   `json:"kind"`
			Seeds []uint64 `json:"seeds"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range c.Findings {
		kinds = append(kinds, f.Kind)
	}
	if c.Seeds != 8 || len(c.Unjudged) != 0 || !slices.Contains(kinds, "double-charge") {
		t.Fatalf("merged: %d seeds, unjudged %v, kinds %v; want 8, none, double-charge", c.Seeds, c.Unjudged, kinds)
	}
	for _, p := range []string{"index.html", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(r.reportDir, p)); err != nil {
			t.Errorf("merge did not write %s: %v", p, err)
		}
	}
	// The JUnit step publishes what the merge wrote.
	for _, st := range get(mergeJob, "steps").([]any) {
		if strings.HasPrefix(str(get(st, "uses")), "mikepenz/action-junit-report@") {
			if _, err := os.Stat(filepath.Join(dl, str(get(st, "with", "report_paths")))); err != nil {
				t.Errorf("the JUnit step publishes %s, which the merge did not write", get(st, "with", "report_paths"))
			}
		}
	}
}
