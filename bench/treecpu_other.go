//go:build !unix

package bench

import (
	"os"
	"time"
)

// treeCPU is the CPU time of this process and its live descendants (no
// children account to read here).
func treeCPU() time.Duration {
	return sampleCPU([]procGroup{{name: "tree", pids: []int{os.Getpid()}, tree: true}})["tree"]
}
