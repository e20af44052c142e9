package freeport

import "testing"

// TestGetOutsideEphemeralRange: server ports come from below the kernel's
// ephemeral range, so no outgoing connection's source port can take one
// between the pick and the server's bind, and one process never gets the same
// port twice.
func TestGetOutsideEphemeralRange(t *testing.T) {
	lo, hi := serverPortRange()
	seen := map[int]bool{}
	for i := 0; i < 100; i++ {
		p, err := Get()
		if err != nil {
			t.Fatal(err)
		}
		if p < lo || p >= hi {
			t.Fatalf("port %d outside [%d, %d)", p, lo, hi)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}
