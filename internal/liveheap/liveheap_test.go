package liveheap

import (
	"runtime"
	"testing"
)

// TestBytesCountsWhatIsKeptNotGarbage: 64 MiB kept raise Bytes by at least
// that much; once let go, Bytes falls back by them (within 64 KiB the
// runtime's own bookkeeping may take meanwhile).
func TestBytesCountsWhatIsKeptNotGarbage(t *testing.T) {
	const n = 64 << 20
	before := Bytes()
	kept := make([]byte, n)
	for i := range kept {
		kept[i] = byte(i)
	}
	with := Bytes()
	runtime.KeepAlive(kept)
	kept = nil
	after := Bytes()
	if with < before+n || with-after < n-64<<10 {
		t.Fatalf("before %d, with 64 MiB kept %d, after letting it go %d: want +64 MiB then -64 MiB", before, with, after)
	}
	_ = kept
}
