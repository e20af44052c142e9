package checker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
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
// by what the whole file records) and dropped, two pieces at a time
// (checkPieces), and the pieces' findings are
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
	pieces, err := checkPieces(files, opts, whole)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: read a piece again: %w", ro.File, err)
	}
	res := combine(opts, pieces)
	res.Elapsed = time.Since(start)
	return res, warns, nil
}

// piecesAtOnce is how many pieces the third pass decodes and checks at
// once. A piece's check has long stretches on one core (linking, the
// partitions, the quiescence rules), so two pieces keep two cores busy; each
// holds about 250 MB at its peak at 250k ops.
const piecesAtOnce = 2

// checkPieces is the third pass: each piece's file decoded, checked and
// dropped, piecesAtOnce at a time. The findings come back by piece, in the
// order of files, whatever order the checks end in.
func checkPieces(files []string, opts CheckOptions, whole *recorded) ([]*piece, error) {
	pieces := make([]*piece, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(piecesAtOnce, len(files)) {
		wg.Go(func() {
			for i := range next {
				h, err := readPiece(files[i])
				if err != nil {
					errs[i] = err
					continue
				}
				pieces[i] = checkPiece(h, opts, whole)
				// The piece's ops are garbage now, unless a picture needs them.
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return pieces, errors.Join(errs...)
}

// joinFile is the first pass: every line read, its names joined and its op
// written to the file ops, a record a line (an empty one for a blank line).
// It is a pipeline of batches of lines: the cores parse one while one
// goroutine joins the names of the one before (one union-find over the
// whole file, as long as the parse) and another writes the records of the
// one before that (as long as the joining, mostly the kernel's copy).
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
	j := newJoiner()
	whole := &recorded{}
	sr := &history.StreamReader{Opts: ro}
	const stages = 3 // parsed, joined, written
	free := make(chan *lineBatch, stages)
	for range stages {
		free <- &lineBatch{}
	}
	parsed, joined := make(chan *lineBatch, 1), make(chan *lineBatch, 1)
	written := make(chan struct{})
	go func() {
		defer close(joined)
		for b := range parsed {
			b.join(j, whole)
			joined <- b
		}
	}()
	go func() {
		defer close(written)
		for b := range joined {
			for _, rec := range b.recs {
				out.write(rec)
			}
			free <- b
		}
	}()
	var cur *lineBatch
	err = sr.ReadBatches(f, func(first, n int) {
		cur = <-free
		cur.reset(first, n)
	}, func(line int, op *history.Op) {
		cur.visit(line, op)
	}, func(first, n int) {
		parsed <- cur
	})
	close(parsed)
	<-written
	if err == nil {
		err = out.close()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return j, whole, sr, nil
}

// lineBatch is what the first pass keeps of a batch of lines, by line of
// the batch: its names, its record and what it records.
type lineBatch struct {
	first int
	keys  []opKeys
	recs  [][]byte // each keeps its room for the next batch
	has   []uint8  // as bits: charge, credit, notify, sink read
}

func (b *lineBatch) reset(first, n int) {
	b.first = first
	b.keys = append(b.keys[:0], make([]opKeys, n)...)
	b.has = append(b.has[:0], make([]uint8, n)...)
	if n > cap(b.recs) {
		b.recs = append(b.recs[:cap(b.recs)], make([][]byte, n-cap(b.recs))...)
	}
	b.recs = b.recs[:n]
}

// visit keeps line's op (nil: a blank line); it runs on every core at once,
// each on its own lines.
func (b *lineBatch) visit(line int, op *history.Op) {
	k := line - b.first
	if op == nil {
		b.keys[k].n = -1
		b.recs[k] = b.recs[k][:0]
		return
	}
	b.keys[k] = keysOf(op)
	b.recs[k] = history.AppendOpBinary(b.recs[k][:0], op)
	switch {
	case op.Op == history.OpCharge:
		b.has[k] = 1
	case op.Op == history.OpCredit:
		b.has[k] = 2
	case op.Op == history.OpNotify:
		b.has[k] = 4
	case op.Op == history.OpSink && op.Output != nil:
		b.has[k] = 8
	}
}

// join adds the batch's lines, in order, to j and whole.
func (b *lineBatch) join(j *joiner, whole *recorded) {
	for k := range b.keys {
		if b.keys[k].n < 0 {
			j.line(nil)
			continue
		}
		j.line(&b.keys[k])
		whole.charges = whole.charges || b.has[k]&1 != 0
		whole.credits = whole.credits || b.has[k]&2 != 0
		whole.notifies = whole.notifies || b.has[k]&4 != 0
		whole.sinkReads = whole.sinkReads || b.has[k]&8 != 0
	}
}
