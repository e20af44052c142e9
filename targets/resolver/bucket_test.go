package resolver

import (
	"testing"
	"time"
)

func TestBucketCapsTheRate(t *testing.T) {
	b := NewBucket(10, 2) // 10/s, burst 2
	now := b.last
	if d := b.Reserve(now); d != 0 {
		t.Fatalf("first token waited %v", d)
	}
	if d := b.Reserve(now); d != 0 {
		t.Fatalf("burst token waited %v", d)
	}
	if d := b.Reserve(now); d != 100*time.Millisecond {
		t.Fatalf("third token waits %v, want 100ms", d)
	}
	if d := b.Reserve(now.Add(time.Second)); d != 0 {
		t.Fatalf("after a second: waits %v", d)
	}
	if NewBucket(0, 1).Reserve(now) != 0 {
		t.Fatal("rate 0 must be unlimited")
	}
}
