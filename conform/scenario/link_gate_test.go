package scenario

import (
	"testing"
	"time"
)

// TestLinkGate: a network fault ends the burst on the links before it arms
// (it waits until the burst's toxic is off), and no burst starts while a
// fault is armed.
func TestLinkGate(t *testing.T) {
	e := &Env{}
	stop, end, ok := e.BurstStart()
	if !ok {
		t.Fatal("a burst could not start with no fault armed")
	}
	removed := make(chan time.Time, 1)
	go func() {
		<-stop
		time.Sleep(50 * time.Millisecond) // the toxic comes off
		removed <- time.Now()
		end()
	}()
	off := e.LinkFaultOn()
	armed := time.Now()
	if r := <-removed; armed.Before(r) {
		t.Fatalf("the fault armed %v before the burst's toxic came off", r.Sub(armed))
	}
	if _, _, ok := e.BurstStart(); ok {
		t.Fatal("a burst started while a network fault was armed")
	}
	off()
	off() // once only
	if _, end, ok := e.BurstStart(); !ok {
		t.Fatal("no burst after the fault was undone")
	} else {
		end()
	}
}
