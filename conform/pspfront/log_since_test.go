package pspfront

import (
	"errors"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// TestExchangesSince: from any position it is Exchanges()[n:], the chunks
// before n unread (a lost one there is no error of it); a lost chunk at or
// after n is its error and ReadError's.
func TestExchangesSince(t *testing.T) {
	f, err := Start("http://127.0.0.1:1", "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 2*spill.ChunkLen + 3
	for i := range n {
		f.keep(Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_%d", i), Status: 200})
	}
	all := f.Exchanges()
	for _, from := range []int{0, 1, spill.ChunkLen, spill.ChunkLen + 5, 2 * spill.ChunkLen, n, n + 1} {
		got, err := f.ExchangesSince(from)
		if want := all[min(from, n):]; err != nil || len(got) != len(want) {
			t.Fatalf("since %d: %d exchanges (%v), want %d", from, len(got), err, len(want))
		} else {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("since %d: exchange %d is %+v, want %+v", from, i, got[i], want[i])
				}
			}
		}
	}
	if err := f.disk.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := f.ExchangesSince(2 * spill.ChunkLen); err != nil || len(got) != 3 || f.ReadError() != nil {
		t.Fatalf("since the tail: %d exchanges, %v; want its 3, no chunk read", len(got), err)
	}
	got, err := f.ExchangesSince(spill.ChunkLen + 1)
	if !errors.Is(err, spill.ErrClosed) || len(got) != n-spill.ChunkLen-1 || got[0] != (Exchange{}) || got[len(got)-1] != all[n-1] {
		t.Fatalf("since within the lost second chunk: %d exchanges, %v; want the chunk's empty, the tail whole, the closed store", len(got), err)
	}
	if !errors.Is(f.ReadError(), spill.ErrClosed) {
		t.Fatal("ReadError does not keep the failed read")
	}
}
