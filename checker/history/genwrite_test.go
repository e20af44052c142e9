package history

import (
	"bytes"
	"slices"
	"testing"
)

// TestGenerateJSONLIsGenerate: the file `idemcheck gen` writes a window at
// a time holds exactly Generate's lines, the same bytes for one seed, and
// its windows are shuffled (not generation order).
func TestGenerateJSONLIsGenerate(t *testing.T) {
	defer func(w int) { genWindow = w }(genWindow)
	genWindow = 1000 // many windows, and a last one part full
	o := GenOptions{Seed: 9, Ops: 20000, UnknownRate: 0.1}
	file := func(o GenOptions) []byte {
		var b bytes.Buffer
		n, _, err := GenerateJSONL(&b, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(b.Bytes(), []byte("\n")); got != n {
			t.Fatalf("%d lines, said %d", got, n)
		}
		return b.Bytes()
	}
	a := file(o)
	if !bytes.Equal(a, file(o)) {
		t.Fatal("one seed wrote two different files")
	}
	if bytes.Equal(a, file(GenOptions{Seed: 10, Ops: 20000, UnknownRate: 0.1})) {
		t.Fatal("two seeds wrote the same file")
	}
	h, _ := Generate(o)
	var whole bytes.Buffer
	if err := WriteJSONL(&whole, h); err != nil {
		t.Fatal(err)
	}
	lines := func(b []byte) [][]byte {
		ls := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		slices.SortFunc(ls, bytes.Compare)
		return ls
	}
	if got, want := lines(a), lines(whole.Bytes()); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("streamed %d lines, Generate %d, not the same lines", len(got), len(want))
	}
	var ordered bytes.Buffer
	g := newGenerator(o)
	g.run(func(part History) {
		if err := WriteJSONL(&ordered, part); err != nil {
			t.Fatal(err)
		}
	})
	if bytes.Equal(a, ordered.Bytes()) {
		t.Fatal("not shuffled")
	}
}
