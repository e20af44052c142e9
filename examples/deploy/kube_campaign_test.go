package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/idemcheck/idemcheck/conform/campaign"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

const campaignDir = kubeDir + "/campaign"

// objects reads every object of a multi-document manifest, by kind/name.
func objects(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	d := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var o map[string]any
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[dig(o, "kind").(string)+"/"+dig(o, "metadata", "name").(string)] = o
	}
	return out
}

// dig walks maps by key and lists by index.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, toString(x))
	}
	return out
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case uint64:
		return strconv.FormatUint(x, 10)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

// flagValue is the value after flag in args ("" when absent).
func flagValue(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// mounts maps a container's mount paths to its volumes' sources.
func mounts(pod any) map[string]string {
	src := map[string]string{}
	for _, v := range dig(pod, "volumes").([]any) {
		name := toString(dig(v, "name"))
		if c := dig(v, "configMap", "name"); c != nil {
			src[name] = "configMap/" + toString(c)
		}
		if c := dig(v, "persistentVolumeClaim", "claimName"); c != nil {
			src[name] = "pvc/" + toString(c)
		}
	}
	out := map[string]string{}
	for _, m := range dig(pod, "containers", 0, "volumeMounts").([]any) {
		out[toString(dig(m, "mountPath"))] = src[toString(dig(m, "name"))]
	}
	return out
}

// under says which mount a path is on ("" when none).
func under(path string, ms map[string]string) string {
	for mp, src := range ms {
		if strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/") {
			return src
		}
	}
	return ""
}

// TestKubernetesCampaignExample cross-checks the campaign manifests with
// each other and with the example's one-run Job: an Indexed Job whose
// count IDEMCHECK_SHARDS repeats, the config mounted as job.yaml mounts it,
// every shard writing into the volume the merge Job reads, and arguments
// idemcheck takes. Then it runs the merge Job's command as written, its
// volume a local folder holding two shards' reports.
func TestKubernetesCampaignExample(t *testing.T) {
	objs := objects(t, filepath.Join(campaignDir, "campaign.yaml"))
	merge := objects(t, filepath.Join(campaignDir, "merge.yaml"))["Job/idemcheck-campaign-merge"]
	one := objects(t, filepath.Join(kubeDir, "job.yaml"))["Job/idemcheck"]
	job := objs["Job/idemcheck-campaign"]
	if job == nil || merge == nil || one == nil || objs["PersistentVolumeClaim/idemcheck-campaign-reports"] == nil {
		t.Fatalf("want Job/idemcheck-campaign and its PersistentVolumeClaim, Job/idemcheck-campaign-merge, and kubernetes/job.yaml's Job")
	}
	spec := dig(job, "spec")
	n, _ := strconv.Atoi(toString(dig(spec, "completions")))
	c := dig(spec, "template", "spec", "containers", 0)
	env := map[string]string{}
	for _, e := range dig(c, "env").([]any) {
		env[toString(dig(e, "name"))] = toString(dig(e, "value"))
	}
	if toString(dig(spec, "completionMode")) != "Indexed" || n < 2 || env["IDEMCHECK_SHARDS"] != strconv.Itoa(n) {
		t.Errorf("campaign Job: completionMode %v, completions %d, IDEMCHECK_SHARDS %q; want Indexed, the count repeated", dig(spec, "completionMode"), n, env["IDEMCHECK_SHARDS"])
	}
	if p := toString(dig(spec, "parallelism")); p != "1" {
		t.Errorf("campaign Job: parallelism %s; shards that share one deployment must run one at a time", p)
	}
	for _, f := range []string{"serviceAccountName"} {
		if dig(spec, "template", "spec", f) != dig(one, "spec", "template", "spec", f) {
			t.Errorf("campaign Job: %s %v, job.yaml's is %v (target.control acts as it)", f, dig(spec, "template", "spec", f), dig(one, "spec", "template", "spec", f))
		}
	}
	args := strs(dig(c, "args"))
	ms := mounts(dig(spec, "template", "spec"))
	if args[0] != "run" || !slices.Contains(args, "--chaos") || flagValue(args, "--shard") != "" {
		t.Errorf("campaign args %v: want run --chaos, the shard from the Job's index (no --shard)", args)
	}
	if _, err := campaign.ParseRange(flagValue(args, "--seeds")); err != nil {
		t.Error(err)
	}
	if _, err := time.ParseDuration(flagValue(args, "--duration")); err != nil {
		t.Errorf("campaign --duration: %v", err)
	}
	if src := under(flagValue(args, "--config"), ms); src != "configMap/idemcheck-config" {
		t.Errorf("campaign --config %s is on %q, want the example's ConfigMap", flagValue(args, "--config"), src)
	}
	if flagValue(args, "--config") != flagValue(strs(dig(one, "spec", "template", "spec", "containers", 0, "args")), "--config") {
		t.Error("campaign --config differs from job.yaml's")
	}
	out := flagValue(args, "--out")
	reports := under(out, ms)
	if !strings.HasPrefix(reports, "pvc/") {
		t.Fatalf("campaign --out %s is on %q, want the reports volume", out, reports)
	}
	margs := strs(dig(merge, "spec", "template", "spec", "containers", 0, "args"))
	mms := mounts(dig(merge, "spec", "template", "spec"))
	if margs[0] != "merge" || margs[len(margs)-1] != out || under(out, mms) != reports {
		t.Fatalf("merge args %v: want merge ... %s, on the same volume (%s)", margs, out, reports)
	}
	for _, f := range []string{"--json", "--junit", "--html"} {
		if under(flagValue(margs, f), mms) != reports {
			t.Errorf("merge %s %s: not on the reports volume", f, flagValue(margs, f))
		}
	}

	// The merge Job's command as written, its volume a local folder.
	vol := t.TempDir()
	mp := ""
	for p := range mms {
		mp = p
	}
	local := func(p string) string { return filepath.Join(vol, strings.TrimPrefix(p, mp)) }
	for seed, v := range map[uint64]scenario.Verdict{1: scenario.Pass, 2: scenario.Violation} {
		res := scenario.Result{ID: "chaos", Level: scenario.Safety, Verdict: v}
		if v == scenario.Violation {
			res.Findings = []scenario.Finding{{Level: scenario.Safety, Kind: "double-charge", Message: "2 PSP charges for 1 intent"}}
		}
		r := &report.Report{Config: "/work/idemcheck.yaml", Seed: seed, Results: []scenario.Result{res}}
		r.ExitCode = r.Exit()
		if err := os.MkdirAll(local(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteJSON(filepath.Join(local(out), "seed-"+strconv.FormatUint(seed, 10)+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "idemcheck")
	if b, err := exec.Command("go", "build", "-o", bin, "../../cmd/idemcheck").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	var run []string
	for _, a := range margs {
		if strings.HasPrefix(a, mp+"/") {
			a = local(a)
		}
		run = append(run, a)
	}
	cmd := exec.Command(bin, run...)
	b, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(b), "FAIL: 1 distinct finding(s) in 1 of 2 seed(s)") {
		t.Fatalf("merge as written: exit %d\n%s", code, b)
	}
	for _, f := range []string{"--json", "--junit"} {
		if _, err := os.Stat(local(flagValue(margs, f))); err != nil {
			t.Errorf("merge %s: %v", f, err)
		}
	}
}
