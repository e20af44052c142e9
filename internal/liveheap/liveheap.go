// Package liveheap is the one measure the heap benchmarks of a soak's
// parts share (fakepsp, the recording front, the judge, the fault set):
// the bytes still reachable after a full collection, so that bytes per
// intent are what a long run keeps, not garbage not yet collected.
package liveheap

import "runtime"

// Bytes collects twice (the first cycle may leave objects a finalizer
// freed) and returns the heap's bytes in use.
func Bytes() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
