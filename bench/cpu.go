package bench

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ: /proc stat times are in these ticks
// (what sampleCPU falls back to when processCPU cannot read a clock).
const clockTick = 10 * time.Millisecond

// procGroup is a named set of processes whose CPU time is summed: a root
// pid, with its descendants when tree is set (a Postgres cluster's backends).
type procGroup struct {
	name string
	pids []int
	tree bool
}

// cpuSample is each group's CPU time (user + system) at one instant.
type cpuSample map[string]time.Duration

// sampleCPU reads /proc once for every group (Linux; elsewhere it returns
// nil and no breakdown is printed).
func sampleCPU(groups []procGroup) cpuSample {
	stats := map[int][2]int64{} // pid -> {ppid, utime+stime}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.ParseInt(f[1], 10, 64)
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		stats[pid] = [2]int64{ppid, ut + st}
	}
	children := map[int][]int{}
	for pid, s := range stats {
		children[int(s[0])] = append(children[int(s[0])], pid)
	}
	out := cpuSample{}
	for _, g := range groups {
		var sum time.Duration
		var walk func(pid int)
		walk = func(pid int) {
			if t, ok := processCPU(pid); ok {
				sum += t
			} else {
				sum += time.Duration(stats[pid][1]) * clockTick
			}
			if g.tree {
				for _, c := range children[pid] {
					walk(c)
				}
			}
		}
		for _, p := range g.pids {
			if p > 0 {
				walk(p)
			}
		}
		out[g.name] += sum
	}
	return out
}

// perOp formats each group's CPU between two samples per operation, in µs,
// largest first, and the total.
func perOp(before, after cpuSample, n int) (string, float64) {
	if before == nil || after == nil || n == 0 {
		return "", 0
	}
	type part struct {
		name string
		us   float64
	}
	var parts []part
	var total float64
	for k, a := range after {
		us := float64((a - before[k]).Microseconds()) / float64(n)
		total += us
		parts = append(parts, part{k, us})
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].us > parts[j].us })
	var s []string
	for _, p := range parts {
		if p.us < 0.5 {
			continue
		}
		s = append(s, fmt.Sprintf("%s %.0f", p.name, p.us))
	}
	return strings.Join(s, ", "), total
}

// medianOf is the median of xs (0 when empty).
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fmtFloats lists xs as "35.2/41.0/39.8".
func fmtFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(parts, "/")
}

// cpuNextTo prints a path's CPU per operation next to its server's own CPU
// per raw operation (the median of the rounds, each shown) and keys the
// server's figure and the ratio.
func (r *runner) cpuNextTo(label, procs string, total float64, server string, rounds []float64, serverKey, ratioKey string) {
	ref := medianOf(rounds)
	if ref <= 0 {
		return
	}
	r.row(label, fmt.Sprintf("%.0f (every process: %s)", total, procs),
		fmt.Sprintf("%s %.1f (median of %d rounds: %s)", server, ref, len(rounds), fmtFloats(rounds)), fmt.Sprintf("%.1fx", total/ref))
	r.key(serverKey, "%.1f", ref)
	r.key(ratioKey, "%.1f", total/ref)
}
