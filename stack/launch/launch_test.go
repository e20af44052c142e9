package launch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// Two tiers of this test binary: one publishes its addresses (and the story
// scale it was given, so the test sees the environment reached it), one
// dies on its start-up path.
func init() {
	tier.Register("launch-test-serves", func(ctx context.Context, args []string) error {
		fs := flag.NewFlagSet("serves", flag.ContinueOnError)
		file := fs.String("addr-file", "", "")
		fp := fs.String("failpoints", "", "")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if err := tier.WriteAddrs(*file, map[string]string{"http": "http://127.0.0.1:1", "scale": os.Getenv(storytime.EnvScale), "armed": *fp}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	tier.Register("launch-test-dies", func(context.Context, []string) error {
		fmt.Fprintln(os.Stderr, "launch-test-dies: no database at -postgres")
		return errors.New("bad start")
	})
}

func TestMain(m *testing.M) {
	tier.Dispatch()
	os.Exit(m.Run())
}

func TestStartWaitsForTheAddresses(t *testing.T) {
	dir := t.TempDir()
	lt, err := Start(context.Background(), Spec{Dir: dir, Name: "one", Tier: "launch-test-serves", Arm: "p=1*error"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lt.Proc.Stop(5 * time.Second) }()
	if lt.Addrs["http"] != "http://127.0.0.1:1" {
		t.Fatalf("addresses %v", lt.Addrs)
	}
	if lt.Addrs["scale"] != storytime.Scale.String() {
		t.Fatalf("the tier ran with story scale %q, want %q", lt.Addrs["scale"], storytime.Scale)
	}
	if lt.Addrs["armed"] != "p=1*error" {
		t.Fatalf("the tier was armed with %q", lt.Addrs["armed"])
	}
}

// A tier that dies before it publishes fails the start at once, quoting its
// log, not after the whole wait.
func TestStartOfATierThatDiesQuotesItsLog(t *testing.T) {
	tracked := 0
	_, err := Start(context.Background(), Spec{Dir: t.TempDir(), Name: "two", Tier: "launch-test-dies",
		Track: func(*faults.Process) { tracked++ }})
	if err == nil || !strings.Contains(err.Error(), "exited before serving") || !strings.Contains(err.Error(), "no database at -postgres") {
		t.Fatalf("Start = %v, want the death and the log's last lines", err)
	}
	if tracked != 1 {
		t.Fatalf("Track called %d times, want 1", tracked)
	}
}
