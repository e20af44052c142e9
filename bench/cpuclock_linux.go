package bench

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU is the CPU time of pid's whole thread group, exited threads
// included, to the nanosecond: the kernel's process CPU clock of another
// process (clock_getcpuclockid(3) builds the same clock id). /proc's stat
// gives it in 10 ms ticks, cut off per process, so a round over the 32
// Postgres backends could be off by a third of what it measured.
func processCPU(pid int) (time.Duration, bool) {
	const cpuClockSched = 2 // CPUCLOCK_SCHED: the scheduler's runtime
	if pid <= 0 || pid >= 1<<28 {
		return 0, false // a clock id is 32 bits: a larger pid would wrap to another
	}
	clock := (^int32(pid) << 3) | cpuClockSched
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(int64(clock)), uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
