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
