package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/targets/tier"
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
	addrFile := filepath.Join(p.dir, proc+".addr")
	cmd, err := tier.Command(tierName, append(args, "-addr-file", addrFile)...)
	if err != nil {
		return nil, err
	}
	pr, err := faults.StartProcess(proc, cmd, p.dir)
	if err != nil {
		return nil, err
	}
	p.list = append(p.list, pr)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	addrs, err := tier.ReadAddrs(rctx, addrFile)
	if err != nil {
		return nil, fmt.Errorf("%s did not publish its addresses: %v; log %s:\n%s", proc, err, pr.LogPath(), logtail.Lines(pr.LogPath(), 30))
	}
	return addrs, nil
}

// stop ends every process (SIGTERM: each writes its CPU profile) and
// removes the logs.
func (p *procs) stop() {
	for i := len(p.list) - 1; i >= 0; i-- {
		_ = p.list[i].Stop(10 * time.Second)
	}
	_ = os.RemoveAll(p.dir)
}
