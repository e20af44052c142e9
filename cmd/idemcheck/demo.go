package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/conform"
)

// demoMutant is the guard the demo switches off: keys not scoped to the
// caller, so u2's request with u1's key hears u1's answer (SCENARIOS.md A6).
const demoMutant = "key-not-scoped"

// cmdDemo is the main job: every check against the reference stack on real
// servers (all must pass), then the same against one mutant (it must be
// caught). It exits 0 only when both come out as they should, so it can gate
// CI on the harness itself.
func cmdDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "idemcheck-report", "directory for the two runs' reports (HTML, JSON, JUnit)")
	if code, ok := parseNoArgs(fs, args, stderr, "demo"); !ok {
		return code
	}
	run := func(name string, extra ...string) int {
		dir := filepath.Join(*out, name)
		fmt.Fprintf(stdout, "\n== idemcheck demo: %s ==\n", name)
		a := append([]string{"--reference", "--html", dir,
			"--json", filepath.Join(dir, "report.json"), "--junit", filepath.Join(dir, "junit.xml")}, extra...)
		return cmdRun(a, stdout, stderr)
	}
	ref := run("reference")
	mut := run("mutant-"+demoMutant, "--mutant", demoMutant)
	fmt.Fprintf(stdout, "\n== idemcheck demo: summary ==\n")
	ok := true
	if ref == conform.ExitPass {
		fmt.Fprintf(stdout, "reference stack (all guards on): PASS, every check holds\n")
	} else {
		ok = false
		fmt.Fprintf(stdout, "reference stack (all guards on): exit %d, want 0: the reference failed %s\n", ref, failing(filepath.Join(*out, "reference", "report.json")))
	}
	if mut == conform.ExitViolation {
		report, err := filepath.Abs(filepath.Join(*out, "mutant-"+demoMutant, "index.html"))
		if err != nil {
			report = filepath.Join(*out, "mutant-"+demoMutant, "index.html")
		}
		fmt.Fprintf(stdout, "mutant %s: CAUGHT (exit 1), as it must be; report: %s\n", demoMutant, report)
	} else {
		ok = false
		fmt.Fprintf(stdout, "mutant %s: exit %d, want 1: the harness missed a broken guard\n", demoMutant, mut)
	}
	if !ok {
		return conform.ExitViolation
	}
	return conform.ExitPass
}

// failing names the checks of a JSON report that failed, with their verdicts.
func failing(path string) string {
	var r struct {
		Results []struct{ ID, Verdict string } `json:"results"`
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &r) != nil {
		return "a check (no JSON report to say which)"
	}
	var ids []string
	for _, x := range r.Results {
		if x.Verdict != "pass" && x.Verdict != "n/a" && x.Verdict != "deviation" {
			ids = append(ids, x.ID+" ("+x.Verdict+")")
		}
	}
	if len(ids) == 0 {
		return "no check (the run itself failed)"
	}
	return strings.Join(ids, ", ")
}
