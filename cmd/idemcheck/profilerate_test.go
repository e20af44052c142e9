package main

import (
	"runtime"
	"testing"
)

// The command keeps no heap profile: at any other rate a soak's process
// keeps a profiling bucket for every allocation stack it ever sampled.
func TestCommandSamplesNoHeapProfile(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Fatalf("runtime.MemProfileRate is %d in the idemcheck command, want 0", runtime.MemProfileRate)
	}
}
