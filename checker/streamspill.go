package checker

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idemcheck/idemcheck/checker/history"
)

// recordWriter writes length-prefixed op records (history.AppendOpBinary)
// to a temporary file; the first error sticks and close reports it.
type recordWriter struct {
	f   *os.File
	w   *bufio.Writer
	err error
	n   [binary.MaxVarintLen64]byte
}

func newRecordWriter(name string) (*recordWriter, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	return &recordWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (r *recordWriter) write(rec []byte) {
	if r.err != nil {
		return
	}
	if _, r.err = r.w.Write(r.n[:binary.PutUvarint(r.n[:], uint64(len(rec)))]); r.err == nil {
		_, r.err = r.w.Write(rec)
	}
}

// close flushes and closes once; later calls return the first error.
func (r *recordWriter) close() error {
	if r.f == nil {
		return r.err
	}
	if err := r.w.Flush(); r.err == nil {
		r.err = err
	}
	if err := r.f.Close(); r.err == nil {
		r.err = err
	}
	r.f = nil
	return r.err
}

// spill is the second pass: each line's record copied from the file ops
// into its piece's file, in file order. It returns the files, by piece.
func spill(ops, dir string, byLine []uint32, count int) ([]string, error) {
	in, err := os.Open(ops)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	files := make([]string, count)
	ws := make([]*recordWriter, count)
	defer func() {
		for _, w := range ws {
			if w != nil {
				w.close()
			}
		}
	}()
	for p := range files {
		files[p] = filepath.Join(dir, fmt.Sprintf("piece-%d.bin", p))
		if ws[p], err = newRecordWriter(files[p]); err != nil {
			return nil, err
		}
	}
	r := bufio.NewReaderSize(in, 1<<20)
	var rec []byte
	for line := range byLine {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, fmt.Errorf("op records: line %d: %w", line+1, err)
		}
		if n == 0 {
			continue // blank
		}
		rec = append(rec[:0], make([]byte, n)...)
		if _, err := io.ReadFull(r, rec); err != nil {
			return nil, fmt.Errorf("op records: line %d: %w", line+1, err)
		}
		p := byLine[line]
		if p == noName {
			p = 0 // an op no name joins to any other
		}
		ws[p].write(rec)
	}
	for p, w := range ws {
		ws[p] = nil
		if e := w.close(); err == nil {
			err = e
		}
	}
	os.Remove(ops) // done with: the disk holds the file once, not twice
	return files, err
}

// readPiece decodes one piece's file and removes it.
func readPiece(name string) (history.History, error) {
	data, err := os.ReadFile(name)
	os.Remove(name)
	if err != nil {
		return nil, err
	}
	return history.DecodeOpsBinary(data)
}
