package checker

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/idemcheck/idemcheck/checker/history"
)

// A streamed check drops each piece's records once the piece is checked; a
// string the piece's findings keep that points into them keeps the whole
// piece alive (at 10M ops, every piece's records at once).
func TestCleanPieceKeepsNoRecord(t *testing.T) {
	h, _ := history.Generate(history.GenOptions{Seed: 3, Ops: 5_000})
	var data, rec []byte
	for i := range h {
		rec = history.AppendOpBinary(rec[:0], &h[i])
		data = binary.AppendUvarint(data, uint64(len(rec)))
		data = append(data, rec...)
	}
	piece, err := history.DecodeOpsBinary(data)
	if err != nil {
		t.Fatal(err)
	}
	pc := checkPiece(piece, CheckOptions{Workers: 2, Timeout: defaultTimeout}, &recorded{charges: true, credits: true, notifies: true, sinkReads: true})
	if len(pc.found)+len(pc.failed)+len(pc.kept) != 0 {
		t.Fatalf("a generated legal history: %d findings, %d failed, %d kept partitions", len(pc.found), len(pc.failed), len(pc.kept))
	}
	if len(pc.stretches) == 0 {
		t.Fatal("no merchant stretch counted: the test tests nothing")
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
	for m := range pc.stretches {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(m))); p >= lo && p < hi {
			t.Errorf("merchant %q of the stretch counts points into the piece's records", m)
		}
	}
}
