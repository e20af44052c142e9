package spill

import (
	"errors"
	"testing"
)

// TestFirstErrKeepsTheFirstUntilTaken: the first error wins over later
// ones, Take hands it over once, and nil is never kept.
func TestFirstErrKeepsTheFirstUntilTaken(t *testing.T) {
	var f FirstErr
	first, second := errors.New("chunk 3 unreadable"), errors.New("chunk 4 unreadable")
	f.Keep(nil)
	f.Keep(first)
	f.Keep(second)
	if err := f.Take(); err != first {
		t.Fatalf("Take = %v, want the first error", err)
	}
	if err := f.Take(); err != nil {
		t.Fatalf("second Take = %v, want nil", err)
	}
	f.Keep(second)
	if err := f.Take(); err != second {
		t.Fatalf("Take after another Keep = %v, want it", err)
	}
}
