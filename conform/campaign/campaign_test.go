package campaign

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

var t0 = time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)

// chaosReport is a run's report as run writes it: seed, the chaos check's
// verdict, and (when kind is set) one finding on intent 3, whose schedule
// line gives it a lost PSP reply.
func chaosReport(seed uint64, verdict scenario.Verdict, kind string, covered map[string]int) *report.Report {
	start := t0.Add(time.Duration(seed) * time.Minute)
	res := scenario.Result{ID: "chaos", Level: scenario.Safety, Verdict: verdict, Why: "whole history checked"}
	res.Attempts = []*driver.Attempt{
		{Seq: 1, Step: "chaos: intent 1 copy 1 (no-fault)", Call: start.Add(time.Second).UnixNano()},
		{Seq: 7, Step: "chaos: intent 3 copy 1 (psp-reply-lost)", Call: start.Add(time.Duration(seed) * time.Second).UnixNano()},
		{Seq: 9, Step: "chaos: intent 3 retry", Call: start.Add(time.Duration(seed)*time.Second + time.Second).UnixNano()},
	}
	if kind != "" {
		res.Findings = []scenario.Finding{{Level: scenario.Safety, Kind: kind, Message: "intent 3: two charges at the PSP", Seqs: []int{9, 7}}}
	}
	if verdict == scenario.Inconclusive {
		res.Precondition = "no request succeeded"
	}
	cov := &scenario.Coverage{}
	cov.Add("fault", []string{"no-fault", "psp-reply-lost", "psp-slow"}, covered, map[string]string{"redelivery": "no consumer"})
	res.Coverage = cov
	r := &report.Report{Config: "idemcheck.yaml", Targets: []string{"http://127.0.0.1:8080"}, Seed: seed, Started: start, Elapsed: 20 * time.Second,
		Results: []scenario.Result{res},
		Schedule: []string{
			checks.Planned{N: 1, Caller: 0, Fault: "no-fault", Copies: 1}.String(),
			checks.Planned{N: 3, Caller: 1, Fault: "psp-reply-lost", Copies: 2, Shape: "late-retry", Stretch: 50}.String(),
		}}
	r.ExitCode = r.Exit()
	return r
}

func write(t *testing.T, dir string, r *report.Report) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("seed-%d.json", r.Seed))
	if err := report.WriteJSON(p, r); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMergeGroupsOneBugWithItsSeeds(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "shard-0"), chaosReport(1, scenario.Violation, "double-charge", map[string]int{"no-fault": 3, "psp-reply-lost": 1}))
	write(t, filepath.Join(dir, "shard-0"), chaosReport(3, scenario.Inconclusive, "", map[string]int{"no-fault": 1}))
	write(t, filepath.Join(dir, "shard-1"), chaosReport(2, scenario.Pass, "", map[string]int{"no-fault": 2}))
	write(t, filepath.Join(dir, "shard-1"), chaosReport(4, scenario.Violation, "double-charge", map[string]int{"psp-reply-lost": 2}))
	// Not a report: an HTML report's assets may hold JSON.
	if err := os.WriteFile(filepath.Join(dir, "shard-1", "assets.json"), []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, skipped, err := Read([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 {
		t.Fatalf("skipped %v, want the one non-report", skipped)
	}
	c := Merge(runs)
	if c.Seeds != 4 || !slices.Equal(c.Passed, []uint64{2}) || !slices.Equal(c.Failed, []uint64{1, 3, 4}) || c.ExitCode != 1 {
		t.Fatalf("seeds %d passed %v failed %v exit %d; want 4, [2], [1 3 4], 1", c.Seeds, c.Passed, c.Failed, c.ExitCode)
	}
	if len(c.Findings) != 1 {
		t.Fatalf("%d findings, want the one bug once: %+v", len(c.Findings), c.Findings)
	}
	f := c.Findings[0]
	wantMech := "fault psp-reply-lost, 2 copies, shape late-retry"
	if f.Kind != "double-charge" || f.Check != "chaos" || len(f.Mechanisms) != 1 || f.Mechanisms[0].Mechanism != wantMech || !slices.Equal(f.Seeds, []uint64{1, 4}) {
		t.Fatalf("finding %+v; want chaos double-charge by %q in seeds 1 and 4", f, wantMech)
	}
	// Seed 1's intent 3 was sent 1 s into its run, seed 4's 4 s into its.
	if f.FirstSeed != 1 || f.After != time.Second || !f.First.Equal(t0.Add(time.Minute+time.Second)) {
		t.Fatalf("first detected %v (%v into seed %d); want 1s into seed 1", f.First, f.After, f.FirstSeed)
	}
	if len(c.Unjudged) != 1 || c.Unjudged[0].Seed != 3 || c.Unjudged[0].Checks[0].Why != "no request succeeded" {
		t.Fatalf("unjudged %+v; want seed 3, no request succeeded", c.Unjudged)
	}
	d := c.Coverage.Dimensions[0]
	if d.Exercised["no-fault"] != 6 || d.Exercised["psp-reply-lost"] != 3 || !slices.Equal(d.Missing, []string{"psp-slow"}) || c.Coverage.Covered != 2 || c.Coverage.Allowed != 3 {
		t.Fatalf("summed coverage %+v; want no-fault 6, psp-reply-lost 3, psp-slow missing, 2 of 3", d)
	}
	var out bytes.Buffer
	Print(&out, c, len(skipped))
	for _, want := range []string{"finding 1: chaos double-charge (safety) in 2 seed(s): 1, 4\n  after " + wantMech + ": 2 seed(s): 1, 4", "seed 3: chaos inconclusive: no request succeeded", "FAIL: 1 distinct finding(s) in 3 of 4 seed(s)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, out.String())
		}
	}
}

// TestMergeIsAssociative: merging merged shards gives, byte for byte, what
// merging every report at once gives, and a report read twice counts once.
func TestMergeIsAssociative(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for s := uint64(1); s <= 6; s++ {
		v, k := scenario.Pass, ""
		if s%3 == 0 {
			v, k = scenario.Violation, "lost-effect"
		}
		paths = append(paths, write(t, filepath.Join(dir, "runs"), chaosReport(s, v, k, map[string]int{"no-fault": int(s)})))
	}
	merged := func(name string, in ...string) string {
		runs, _, err := Read(in)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := WriteJSON(p, Merge(runs)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := merged("all.json", paths...)
	ab := merged("ab.json", paths[:2]...)
	cdef := merged("cdef.json", paths[2:]...)
	left := merged("left.json", merged("abcd.json", ab, paths[2], paths[3]), paths[4], paths[5])
	right := merged("right.json", ab, cdef)
	twice := merged("twice.json", all, ab, paths[0])
	want, _ := os.ReadFile(all)
	for _, p := range []string{left, right, twice} {
		got, _ := os.ReadFile(p)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from merging all at once:\n%s\nwant:\n%s", filepath.Base(p), got, want)
		}
	}
}

func TestShardsSplitTheRange(t *testing.T) {
	r, err := ParseRange("1-40")
	if err != nil {
		t.Fatal(err)
	}
	var all []uint64
	for i := range 4 {
		s := r.Seeds(Shard{i, 4})
		if len(s) != 10 {
			t.Fatalf("shard %d has %d seeds, want 10", i, len(s))
		}
		all = append(all, s...)
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 40 || all[0] != 1 || all[39] != 40 {
		t.Fatalf("the shards' union is not 1-40: %v", all)
	}
	for _, bad := range []string{"", "0-3", "5-2", "a-b", "1-x"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) took it", bad)
		}
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "x/2", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) took it", bad)
		}
	}
}

func TestShardFromAnIndexedJob(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if sh, ok, err := ShardFromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": "2", "IDEMCHECK_SHARDS": "4"}), 0); err != nil || !ok || sh != (Shard{2, 4}) {
		t.Fatalf("got %v %v %v; want shard 2 of 4", sh, ok, err)
	}
	if sh, _, err := ShardFromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": "1"}), 3); err != nil || sh != (Shard{1, 3}) {
		t.Fatalf("--shards 3: got %v %v", sh, err)
	}
	if _, ok, err := ShardFromEnv(env(nil), 0); ok || err != nil {
		t.Fatalf("no Job: ok %v err %v; want neither", ok, err)
	}
	for _, m := range []map[string]string{{"JOB_COMPLETION_INDEX": "1"}, {"JOB_COMPLETION_INDEX": "4", "IDEMCHECK_SHARDS": "4"}, {"JOB_COMPLETION_INDEX": "x", "IDEMCHECK_SHARDS": "4"}} {
		if _, _, err := ShardFromEnv(env(m), 0); err == nil {
			t.Errorf("%v: no error", m)
		}
	}
}
