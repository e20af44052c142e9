// Package launch starts a tier process the way every part of the harness
// does: the harness's story-time scale in its environment, failpoints armed
// from its first instruction, its log and address file in one directory,
// and a wait until it has published its addresses (or died, with its log's
// end in the error). The stack launcher, the suites and the benchmarks all
// start tiers through Start.
package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/targets/storytime"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// Wait is how long a tier has to publish its addresses.
const Wait = 30 * time.Second

// Spec is one tier process to start.
type Spec struct {
	Dir  string // its log and address file go here
	Name string // the process's own name (api-1)
	Tier string // the tier it runs (targets/tier's registry)
	// Arm ("point=action;...") arms failpoints before the first
	// instruction, so a restarted tier cannot race past a point.
	Arm  string
	Args []string // -addr-file is added
	// Track, when set, gets the process as soon as it runs, so the
	// caller's teardown stops it even if it never publishes its addresses.
	Track func(*faults.Process)
}

// Tier is a started tier process and the addresses it published.
type Tier struct {
	Proc     *faults.Process
	Addrs    map[string]string
	AddrFile string
}

// Start runs s's tier and waits until it has published its addresses.
func Start(ctx context.Context, s Spec) (*Tier, error) {
	t, err := Run(s)
	if err != nil {
		return nil, err
	}
	return t, t.Await(ctx)
}

// Run starts s's tier without waiting for it (a tier expected to die on
// its start-up path; or Await later).
func Run(s Spec) (*Tier, error) {
	t := &Tier{AddrFile: filepath.Join(s.Dir, s.Name+".addr")}
	_ = os.Remove(t.AddrFile) // only this start's own file may answer
	args := append([]string(nil), s.Args...)
	if s.Arm != "" {
		args = append(args, "-failpoints", s.Arm)
	}
	cmd, err := tier.Command(s.Tier, append(args, "-addr-file", t.AddrFile)...)
	if err != nil {
		return nil, err
	}
	// The scale may have been set in code, where the environment would
	// not carry it to the child.
	cmd.Env = append(cmd.Env, storytime.EnvScale+"="+storytime.Scale.String())
	if t.Proc, err = faults.StartProcess(s.Name, cmd, s.Dir); err != nil {
		return nil, err
	}
	if s.Track != nil {
		s.Track(t.Proc)
	}
	return t, nil
}

// Await waits for the tier's addresses (again after a restart, once the
// old file is removed); a tier that dies first fails at once, quoting its
// log.
func (t *Tier) Await(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, Wait)
	defer cancel()
	for {
		wctx, wcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		addrs, err := tier.ReadAddrs(wctx, t.AddrFile)
		wcancel()
		if err == nil {
			t.Addrs = addrs
			return nil
		}
		if t.Proc.Exited() {
			return fmt.Errorf("%s exited before serving: %v; log %s:\n%s", t.Proc.Name(), t.Proc.Wait(0), t.Proc.LogPath(), logtail.Lines(t.Proc.LogPath(), 30))
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s did not publish its addresses within %s; log %s:\n%s", t.Proc.Name(), Wait, t.Proc.LogPath(), logtail.Lines(t.Proc.LogPath(), 30))
		}
	}
}
