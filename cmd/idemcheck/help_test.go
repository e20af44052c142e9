package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestHelpGoesToStdoutWithExitZero: every command's help is an answer (stdout,
// exit 0, each flag described), `help CMD` is the same, and a usage error
// still goes to stderr with exit 2.
func TestHelpGoesToStdoutWithExitZero(t *testing.T) {
	cases := []struct {
		args []string
		says []string
	}{
		{[]string{"run", "--help"}, []string{"-skip", "-only", "-list-checks", "-require-all-safety"}},
		{[]string{"help", "run"}, []string{"-skip"}},
		{[]string{"check", "-h"}, []string{"-timeout", "-strict", "FILE|-"}},
		{[]string{"help", "check"}, []string{"-initial-balance"}},
		{[]string{"demo", "--help"}, []string{"-out"}},
		{[]string{"psp", "--help"}, []string{"-listen", "-allow-remote"}},
		{[]string{"gen", "--help"}, []string{"-ops", "-seed"}},
		{[]string{"bench", "--help"}, []string{"-quick", "-out", "-only", "-seed", "Exit codes"}},
		{[]string{"help", "bench"}, []string{"-quick"}},
		{[]string{"merge", "--help"}, []string{"-json", "-html", "-junit"}},
		{[]string{"help", "run"}, []string{"-seeds", "-shard", "-shrink", "-schedule"}},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := dispatch(c.args, &out, &errb); code != 0 {
			t.Errorf("%v: exit %d, want 0\nstderr: %s", c.args, code, errb.String())
		}
		for _, w := range c.says {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q\nstdout: %s", c.args, w, out.String())
			}
		}
		if errb.Len() != 0 {
			t.Errorf("%v: help wrote to stderr: %s", c.args, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"help", "nope"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `"nope"`) {
		t.Errorf("help nope: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := dispatch([]string{"run", "--skip", "Z9"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `--skip: unknown check "Z9"`) {
		t.Errorf("run --skip Z9: exit %d, stderr %q", code, errb.String())
	}
}

// TestListChecksAndMutants: the lists name every check and every switch.
func TestListChecksAndMutants(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "--list-checks"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, id := range []string{"A1", "A6", "S-5xx-after-charge", "B4", "P-conflict", "P-expiry", "recount", "chaos"} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("--list-checks lacks %s", id)
		}
	}
	out.Reset()
	if code := dispatch([]string{"run", "--list-mutants"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, m := range []string{"key-not-scoped", "resolver-replay-only", "stream-no-full-flush", "route-nearest-region", "order-by-arrival", "worker-no-inbox", "no-dedup-key", "read-uncommitted"} {
		if !strings.Contains(out.String(), m) {
			t.Errorf("--list-mutants lacks %s", m)
		}
	}
}

// TestCheckReadsStdin: `check -` reads the history from standard input and
// judges it like a file.
func TestCheckReadsStdin(t *testing.T) {
	b, err := os.ReadFile("../../checker/testdata/double-charge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = w.Write(b); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	var out, errb bytes.Buffer
	if code := dispatch([]string{"check", "-"}, &out, &errb); code != 1 || !strings.Contains(out.String(), "double-charge") {
		t.Fatalf("check - on a double charge: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
