//go:build unix

package checkcmd

import (
	"syscall"
	"time"
)

// cpuTime is the CPU this process has used (user + system): on a shared
// machine it moves less with others' load than the wall clock does.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
