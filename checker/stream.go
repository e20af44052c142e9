package checker

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

// recorded is what a whole file records at all, for the rules that apply
// only where it does (HISTORY.md: "where the file records credits at all"):
// a piece of the file must be judged by the file's, not its own.
type recorded struct {
	charges, credits, notifies, sinkReads bool
}

// StreamOptions tune CheckFile.
type StreamOptions struct {
	// PieceOps is about how many ops one piece holds (default 250,000).
	PieceOps int
	// Dir is where the pieces are spilled (default os.TempDir()).
	Dir string
}

const defaultPieceOps = 250_000

// CheckFile checks the history file name as Check checks it once read
// whole, with the same result, the same warnings and the same input error,
// without holding the file: line order carries no meaning, so the ops of
// one intent may be anywhere in it. A first pass parses every line (all
// errors and warnings are found there), joins the ops that share a name
// any rule joins them by (streamkeys.go) and writes each op's binary record
// (history.AppendOpBinary) to a temporary file; a second copies each record
// into the temporary file of its piece, a group of whole components; then
// each piece is decoded (no JSON parsed twice), checked (checkPiece, judged
// by what the whole file records) and dropped, and the pieces' findings are
// merged (combine). The temporary files live in one directory that is
// always removed.
func CheckFile(name string, opts CheckOptions, ro history.ReadOptions, so StreamOptions) (*Result, []*history.InputError, error) {
	start := time.Now()
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if so.PieceOps <= 0 {
		so.PieceOps = defaultPieceOps
	}
	dir, err := os.MkdirTemp(so.Dir, "idemcheck-check-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ops := filepath.Join(dir, "ops.bin")
	j, whole, sr, err := joinFile(name, ro, ops)
	if err != nil {
		return nil, nil, err
	}
	warns := sr.Warnings()
	if sr.Ops == 0 {
		return &Result{opts: opts}, warns, nil
	}
	byLine, count := j.pieces(so.PieceOps)
	files, err := spill(ops, dir, byLine, count)
	if err != nil {
		return nil, nil, err
	}
	byLine = nil
	pieces := make([]*piece, 0, count)
	for _, f := range files {
		h, err := readPiece(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: read a piece again: %w", ro.File, err)
		}
		pieces = append(pieces, checkPiece(h, opts, whole))
		// The piece's ops are garbage now, unless a picture needs them.
	}
	res := combine(opts, pieces)
	res.Elapsed = time.Since(start)
	return res, warns, nil
}

// joinFile is the first pass: every line read, its names joined and its op
// written to the file ops, a record a line (an empty one for a blank line).
func joinFile(name string, ro history.ReadOptions, ops string) (*joiner, *recorded, *history.StreamReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	out, err := newRecordWriter(ops)
	if err != nil {
		return nil, nil, nil, err
	}
	defer out.close()
	var recs, spare [][]byte // by line of the batch: its record; spare keeps their room
	j := newJoiner()
	whole := &recorded{}
	sr := &history.StreamReader{Opts: ro}
	var keys []opKeys
	var has []uint8 // by line of the batch: what it records, as bits
	batchFirst := 0
	visit := func(line int, op *history.Op) {
		k := line - batchFirst
		if op == nil {
			keys[k].n = -1 // blank
			recs[k] = recs[k][:0]
			return
		}
		keys[k] = keysOf(op)
		recs[k] = history.AppendOpBinary(recs[k][:0], op)
		switch {
		case op.Op == history.OpCharge:
			has[k] = 1
		case op.Op == history.OpCredit:
			has[k] = 2
		case op.Op == history.OpNotify:
			has[k] = 4
		case op.Op == history.OpSink && op.Output != nil:
			has[k] = 8
		}
	}
	done := func(first, n int) {
		for k := range n {
			out.write(recs[k])
			if keys[k].n < 0 {
				j.line(nil)
				continue
			}
			j.line(&keys[k])
			whole.charges = whole.charges || has[k]&1 != 0
			whole.credits = whole.credits || has[k]&2 != 0
			whole.notifies = whole.notifies || has[k]&4 != 0
			whole.sinkReads = whole.sinkReads || has[k]&8 != 0
		}
	}
	err = sr.ReadBatches(f, func(first, n int) {
		batchFirst = first
		keys = append(keys[:0], make([]opKeys, n)...)
		has = append(has[:0], make([]uint8, n)...)
		if n > len(spare) {
			spare = append(spare, make([][]byte, n-len(spare))...)
		}
		recs = spare[:n]
	}, visit, done)
	if err == nil {
		err = out.close()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return j, whole, sr, nil
}
