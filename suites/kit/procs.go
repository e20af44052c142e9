package kit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/launch"
	"github.com/idemcheck/idemcheck/targets/failpoint"
)

// Proc is one tier process the world started, and the addresses it
// published (Admin is its failpoint and status endpoint).
type Proc struct {
	*faults.Process
	Admin string
	Addrs map[string]string
}

// Start runs tier tierName as process name and waits for its addresses. arm
// ("point=action;...") arms failpoints before the process's first
// instruction, so a restarted tier cannot race past a point before the
// harness arms it.
func (w *World) Start(ctx context.Context, name, tierName, arm string, args ...string) *Proc {
	ginkgo.GinkgoHelper()
	var p *Proc
	got := StartTier(ctx, w.Dir, name, tierName, arm, func(fp *faults.Process) {
		p = &Proc{Process: fp}
		w.procs = append(w.procs, p)
	}, args...)
	p.Admin, p.Addrs = got.Admin, got.Addrs
	return p
}

// StartNoWait runs a tier that is expected to die before it publishes its
// addresses (a crash failpoint on its start-up path). The args are passed
// as they are.
func (w *World) StartNoWait(name, tierName string, args ...string) *Proc {
	ginkgo.GinkgoHelper()
	t, err := launch.Run(launch.Spec{Dir: w.Dir, Name: name, Tier: tierName, Args: args})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	p := &Proc{Process: t.Proc}
	w.procs = append(w.procs, p)
	return p
}

// StartTier runs tier tierName as process name, its log and address file
// in dir, for a suite that keeps its own processes (StartTier does not stop
// it): track gets the process as soon as it runs, so the caller's teardown
// stops it even when it never publishes its addresses.
func StartTier(ctx context.Context, dir, name, tierName, arm string, track func(*faults.Process), args ...string) *Proc {
	ginkgo.GinkgoHelper()
	t, err := launch.Start(ctx, launch.Spec{Dir: dir, Name: name, Tier: tierName, Arm: arm, Args: args, Track: track})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return &Proc{Process: t.Proc, Admin: t.Addrs["admin"], Addrs: t.Addrs}
}

// Procs lists the processes the world started, in order.
func (w *World) Procs() []*Proc { return append([]*Proc(nil), w.procs...) }

// StopAll sends every process its SIGTERM at once: one that lingers costs
// its grace period once, not once per process.
func StopAll(ps []*Proc) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Stop(5 * time.Second)
		}()
	}
	wg.Wait()
}

// ExpectCrashed waits for p to die at a crash failpoint: the exit status
// proves the fault fired, so a spec cannot pass when the point was missed.
func ExpectCrashed(p *faults.Process) {
	ginkgo.GinkgoHelper()
	err := p.Wait(60 * time.Second)
	var ee *exec.ExitError
	gomega.Expect(errors.As(err, &ee)).To(gomega.BeTrue(), "%s did not exit at its failpoint: %v (log %s)", p.Name(), err, p.LogPath())
	gomega.Expect(ee.ExitCode()).To(gomega.Equal(failpoint.CrashCode), "%s exited with %d, not the failpoint crash code", p.Name(), ee.ExitCode())
}

// ReportLogs adds the last limit bytes of every *.log in dir to the spec's
// report (the dir is removed with the world, so this is what is left of a
// failure). label prefixes the entries' names.
func ReportLogs(dir, label string, limit int) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if len(b) > limit {
			b = b[len(b)-limit:]
		}
		ginkgo.AddReportEntry("log "+label+e.Name(), string(b))
	}
}
