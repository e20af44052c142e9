package spill

import (
	"errors"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

type rec struct {
	N    int
	Name string
	At   time.Time
}

// Order is kept across chunk boundaries and the tail; Len reads nothing.
func TestLogOrderAcrossChunks(t *testing.T) {
	s := &Store{Owner: "test"}
	defer s.Close()
	l := NewLog[rec](s)
	const n = 3*ChunkLen + 5
	at := time.Now().Round(0)
	for i := range n {
		l.Add(rec{N: i, Name: "r" + strconv.Itoa(i), At: at})
	}
	if l.Len() != n {
		t.Fatalf("Len %d, want %d", l.Len(), n)
	}
	if s.Size() == 0 {
		t.Fatal("no chunk was written to the store")
	}
	got, err := l.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("All: %d records, want %d", len(got), n)
	}
	for i, r := range got {
		if r.N != i || r.Name != "r"+strconv.Itoa(i) || r.At != at {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	// Each stops when asked.
	seen := 0
	if err := l.Each(func(r rec) bool { seen++; return r.N < ChunkLen+1 }); err != nil || seen != ChunkLen+2 {
		t.Fatalf("Each stopped after %d (err %v), want %d", seen, err, ChunkLen+2)
	}
}

func TestLogConcurrentAdd(t *testing.T) {
	s := &Store{}
	defer s.Close()
	l := NewLog[rec](s)
	const writers, each = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				l.Add(rec{N: w*each + i})
				if i%97 == 0 {
					if _, err := l.All(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	got, err := l.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each || l.Len() != writers*each {
		t.Fatalf("%d records (Len %d), want %d", len(got), l.Len(), writers*each)
	}
	// Each writer's records come back in the order it added them.
	last := make([]int, writers)
	for i := range last {
		last[i] = -1
	}
	seen := map[int]bool{}
	for _, r := range got {
		w := r.N / each
		if r.N <= last[w] || seen[r.N] {
			t.Fatalf("record %d out of order or twice (writer %d's last %d)", r.N, w, last[w])
		}
		last[w], seen[r.N] = r.N, true
	}
}

// A closed store: the chunks on disk cannot be read; All returns the tail it
// still has and an error naming the lost records, never a shorter list alone.
func TestLogClosedStoreIsAnError(t *testing.T) {
	s := &Store{Owner: "test"}
	l := NewLog[rec](s)
	for i := range 2*ChunkLen + 3 {
		l.Add(rec{N: i})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := l.All()
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("All after Close: err %v, want ErrClosed", err)
	}
	if len(got) != 3 || got[0].N != 2*ChunkLen {
		t.Fatalf("All after Close returned %d records (%v), want the 3 of the tail", len(got), got)
	}
	// Adding on: the next full chunk cannot be written and stays in memory.
	for i := range ChunkLen {
		l.Add(rec{N: 2*ChunkLen + 3 + i})
	}
	if !errors.Is(l.WriteErr(), ErrClosed) {
		t.Fatalf("WriteErr %v, want ErrClosed", l.WriteErr())
	}
	if got, _ := l.All(); len(got) != ChunkLen+3 {
		t.Fatalf("%d records in memory, want %d", len(got), ChunkLen+3)
	}
}

// What a logged record costs in memory: a Ref per chunk, far below a Ref a
// record. Runs in the short suite too, as a check.
func TestLogHeapPerRecord(t *testing.T) {
	b := heapPerRecord(t, 1000*ChunkLen)
	t.Logf("%.2f B of heap per record", b)
	if b > 4 {
		t.Fatalf("%.2f B of heap per record, want at most 4 (a Ref is 16)", b)
	}
}

func BenchmarkLogHeapPerRecord(b *testing.B) {
	for range b.N {
		b.ReportMetric(heapPerRecord(b, 1000*ChunkLen), "heapB/record")
	}
}

func heapPerRecord(tb testing.TB, n int) float64 {
	s := &Store{}
	defer s.Close()
	l := NewLog[rec](s)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		l.Add(rec{N: i, Name: "a record of some length " + strconv.Itoa(i), At: time.Now()})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if l.Len() != n {
		tb.Fatalf("Len %d", l.Len())
	}
	runtime.KeepAlive(l)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}
