package conform

import (
	"fmt"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/internal/resources"
)

// resourceWarmUp is how long a run fills its pools and caches (connections,
// the service's own) before growth means something held per intent.
const resourceWarmUp = 2 * time.Minute

// sampleResources starts sampling idemcheck and the target processes it
// started to o.Resources (CSV) every o.ResourceEvery; the returned stop ends
// it and puts the growth after the warm-up in the report. With no
// --resources it does nothing.
func sampleResources(o Options, tg *targetRun) (stop func() []string) {
	if o.Resources == "" {
		return func() []string { return nil }
	}
	f, err := os.Create(o.Resources)
	if err != nil {
		fmt.Fprintln(o.Stderr, "idemcheck run: --resources:", err)
		return func() []string { return nil }
	}
	every := o.ResourceEvery
	if every <= 0 {
		every = time.Minute
	}
	type pidProc interface {
		PID() int
		Exited() bool
	}
	var procs []pidProc
	for _, p := range tg.procs {
		procs = append(procs, p)
	}
	for _, p := range o.Instances {
		// The reference's API tiers, started by its job, not by startTarget.
		if pp, ok := p.(pidProc); ok {
			procs = append(procs, pp)
		}
	}
	pids := func() []int {
		var out []int
		for _, p := range procs {
			if !p.Exited() {
				out = append(out, p.PID())
			}
		}
		return out
	}
	s := resources.Start(f, every, pids)
	fmt.Fprintf(o.Stderr, "idemcheck run: resources sampled every %s to %s\n", every, o.Resources)
	return func() []string {
		ss, werr := s.Stop()
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		lines := []string{fmt.Sprintf("%d samples every %s in %s", len(ss), every, o.Resources)}
		if werr != nil {
			lines = append(lines, "writing the samples failed: "+werr.Error())
		}
		warm := min(resourceWarmUp, ss[len(ss)-1].Elapsed/4)
		lines = append(lines, resources.GrowthAfter(ss, warm).String(), resources.TrendAfter(ss, warm).String())
		for _, l := range lines {
			fmt.Fprintf(o.Stderr, "idemcheck run: resources: %s\n", l)
		}
		return lines
	}
}
