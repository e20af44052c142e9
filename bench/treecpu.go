//go:build unix

package bench

import (
	"os"
	"syscall"
	"time"
)

// treeCPU is the CPU time (user + system) of this process and every
// process it started: the live ones read from /proc, and those that ended
// and were waited for from the kernel's children account (a tier started
// and stopped inside a measured window counts; /proc alone would lose it).
func treeCPU() time.Duration {
	live := sampleCPU([]procGroup{{name: "tree", pids: []int{os.Getpid()}, tree: true}})["tree"]
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return live
	}
	return live + time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
}
