package tier

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

func TestFlagsParse(t *testing.T) {
	f := NewFlags("t")
	pg := f.Postgres()
	ms := f.Mutants()
	bs := f.Brokers()
	url, key := f.PSP()
	f.Require("pg", "psp")
	err := f.Parse([]string{"-postgres", "dsn", "-psp", "http://p", "-psp-key", "k", "-brokers", "a:1,b:2",
		"-mutants", string(mutant.CheckThenInsert), "-failpoints", testPoint + "=1*error"})
	if err != nil {
		t.Fatal(err)
	}
	defer failpoint.Disarm(testPoint)
	if *pg != "dsn" || *url != "http://p" || *key != "k" || len(*bs) != 2 || (*bs)[1] != "b:2" || !ms.On(mutant.CheckThenInsert) || len(*ms) != 1 {
		t.Fatalf("parsed pg %q psp %q %q brokers %v mutants %v", *pg, *url, *key, *bs, *ms)
	}
	if err := failpoint.Hit(testPoint); !errors.Is(err, failpoint.ErrInjected) {
		t.Fatalf("-failpoints did not arm %s: %v", testPoint, err)
	}
}

func TestFlagsRefuseBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "t: -pg and -psp are required"},
		{[]string{"-pg", "x"}, "t: -pg and -psp are required"},
		{[]string{"-pg", "x", "-psp", "y", "-mutants", "no-such-switch"}, "t: -mutants: "},
		{[]string{"-pg", "x", "-psp", "y", "-failpoints", "no-such-point=crash"}, "t: -failpoints: "},
		{[]string{"-pg", "x", "-psp", "y", "-failpoints", testPoint}, "t: -failpoints entry"},
		{[]string{"-no-such-flag"}, "t: flag provided but not defined"},
	} {
		f := NewFlags("t")
		f.Postgres()
		f.PSP()
		f.Mutants()
		f.Require("pg", "psp")
		err := f.Parse(c.args)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, new(BadInput)) {
			t.Errorf("Parse(%q) = %v; want bad input starting %q", c.args, err, c.want)
		}
	}
}
