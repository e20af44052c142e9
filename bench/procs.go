package bench

import (
	"context"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/launch"
)

// procs are the tier processes one section started, in a temp dir of logs.
type procs struct {
	dir  string
	list []*faults.Process
}

func newProcs() (*procs, error) {
	dir, err := os.MkdirTemp("", "idemcheck-bench-")
	if err != nil {
		return nil, err
	}
	return &procs{dir: dir}, nil
}

// start runs tier tierName as proc and returns the addresses it published.
func (p *procs) start(ctx context.Context, proc, tierName string, args ...string) (map[string]string, error) {
	t, err := launch.Start(ctx, launch.Spec{Dir: p.dir, Name: proc, Tier: tierName, Args: args,
		Track: func(pr *faults.Process) { p.list = append(p.list, pr) }})
	if err != nil {
		return nil, err
	}
	return t.Addrs, nil
}

// stop ends every process (SIGTERM: each writes its CPU profile) and
// removes the logs.
func (p *procs) stop() {
	for i := len(p.list) - 1; i >= 0; i-- {
		_ = p.list[i].Stop(10 * time.Second)
	}
	_ = os.RemoveAll(p.dir)
}
