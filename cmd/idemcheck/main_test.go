package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDispatchExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
		says string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"version"}, 0, "idemcheck devel"},
		{[]string{"--version"}, 0, "idemcheck devel"},
		{[]string{"help"}, 0, "idemcheck demo"},
		{[]string{"check", "../../checker/testdata/legal.jsonl"}, 0, ""},
		{[]string{"check", "../../checker/testdata/double-charge.jsonl"}, 1, "double-charge"},
		{[]string{"check", "does-not-exist.jsonl"}, 2, "does-not-exist.jsonl"},
		{[]string{"check", "--timeout", "1ns", "../../checker/testdata/legal.jsonl"}, 3, "UNDECIDED"},
		{[]string{"check", "../../checker/testdata/double-refund.jsonl"}, 1, "double-refund"},
		{[]string{"gen"}, 2, "usage: idemcheck gen"},
		{[]string{"run", "--no-such-flag"}, 2, "no-such-flag"},
		{[]string{"demo", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"bench", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"bench", "--only", "api,nope"}, 2, `--only: unknown section "nope"`},
		{[]string{"bench", "--seed", "x"}, 2, `--seed "x": want a positive integer`},
		{[]string{"run", "--chaos", "--seeds", "5-2", "--out", "x"}, 2, "the last seed is before the first"},
		{[]string{"run", "--chaos", "--seeds", "1-4"}, 2, "--seeds needs --out DIR"},
		{[]string{"run", "--seeds", "1-4", "--out", "x"}, 2, "--seeds needs --chaos"},
		{[]string{"run", "--chaos", "--seeds", "1-4", "--out", "x", "--shard", "4/4"}, 2, "shard 4 of 4 does not exist"},
		{[]string{"run", "--chaos", "--shard", "0/2"}, 2, "belong to a campaign"},
		{[]string{"run", "--chaos", "--seed", "3", "--seeds", "1-4", "--out", "x"}, 2, "--seed and --seeds"},
		{[]string{"run", "--chaos", "--shrink"}, 2, "--shrink needs --chaos and the failing --seed N"},
		{[]string{"run", "--chaos", "--seed", "3", "--shrink", "--shrink-replays", "4/3"}, 2, "want K/N"},
		{[]string{"run", "--chaos", "--schedule", "does-not-exist.json"}, 2, "does-not-exist.json"},
		{[]string{"run", "--schedule", "x.json"}, 2, "--schedule needs --chaos"},
		{[]string{"merge"}, 2, "give at least one DIR or FILE"},
		{[]string{"merge", "does-not-exist"}, 2, "does-not-exist"},
		{[]string{"merge", "main_test.go"}, 2, "main_test.go: not JSON"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		got := dispatch(c.args, &out, &errb)
		if got != c.want {
			t.Errorf("idemcheck %v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, got, c.want, out.String(), errb.String())
		}
		if !strings.Contains(out.String()+errb.String(), c.says) {
			t.Errorf("idemcheck %v: output lacks %q\nstdout: %s\nstderr: %s", c.args, c.says, out.String(), errb.String())
		}
	}
}
