package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// streamBuf is how much of a file ScanLines holds at once; it grows to
// hold one line of maxLine bytes, never more.
const streamBuf = 8 << 20

// ScanLines calls f with the lines of r in order, in batches, split as
// ReadJSONLWith splits a file (first is the 1-based number of lines[0]),
// holding only a batch: a file of ten million ops is read through a few
// megabytes. The batch's bytes are reused once f returns. A line longer
// than maxLine or a failed read is an *InputError, as for ReadJSONLWith.
func ScanLines(r io.Reader, file string, f func(first int, lines [][]byte)) error {
	buf := make([]byte, streamBuf)
	n, line := 0, 1
	var lines [][]byte
	emit := func(data []byte) error {
		lines = lines[:0]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				i = len(data)
			}
			if i > maxLine {
				return &InputError{File: file, Line: line + len(lines), Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
			}
			lines = append(lines, data[:i])
			data = data[min(i+1, len(data)):]
		}
		if len(lines) > 0 {
			f(line, lines)
			line += len(lines)
		}
		return nil
	}
	for {
		m, err := io.ReadFull(r, buf[n:])
		n += m
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return &InputError{File: file, Line: 1, Msg: "read: " + err.Error()}
		}
		if eof {
			return emit(buf[:n])
		}
		k := bytes.LastIndexByte(buf[:n], '\n')
		if k < 0 {
			if len(buf) > maxLine {
				return &InputError{File: file, Line: line, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
			}
			buf = append(buf, make([]byte, len(buf))...)
			continue
		}
		if err := emit(buf[:k+1]); err != nil {
			return err
		}
		n = copy(buf, buf[k+1:n])
	}
}

// StreamReader reads a history file the way ReadJSONLWith does, with the
// same errors and warnings, but hands each op to the caller instead of
// keeping it (ReadBatches).
type StreamReader struct {
	Opts ReadOptions
	// Ops counts the lines that hold an op (not blank).
	Ops int

	err    *InputError // the first line's error, if any
	at     map[string]int
	warns  []*InputError
	counts map[string]int
}

// ReadBatches decodes every line of r on all cores, a batch of lines at a
// time: begin (first line, count), then visit with each op of the batch,
// concurrently, then done with the batch, serially, batches in order. A blank line gets a nil op.
// visit's op is reused once it returns. The read stops visiting after the
// first line in error but still reads to the end: a line too long anywhere
// wins, as in ReadJSONLWith, which splits the whole file first.
func (s *StreamReader) ReadBatches(r io.Reader, begin func(first, n int), visit func(line int, op *Op), done func(first, n int)) error {
	if s.at == nil {
		s.at, s.counts = map[string]int{}, map[string]int{}
	}
	workers := runtime.GOMAXPROCS(0)
	decoders := make([]fastLine, workers)
	ops := make([]Op, workers)
	var unknown [][]string
	var errs []*InputError
	err := ScanLines(r, s.Opts.File, func(first int, lines [][]byte) {
		if s.err != nil {
			return
		}
		begin(first, len(lines))
		unknown = append(unknown[:0], make([][]string, len(lines))...)
		errs = append(errs[:0], make([]*InputError, len(lines))...)
		chunk := max((len(lines)+workers-1)/workers, 1)
		var wg sync.WaitGroup
		for w, lo := 0, 0; lo < len(lines); w, lo = w+1, lo+chunk {
			hi := min(lo+chunk, len(lines))
			wg.Go(func() {
				d, op := &decoders[w], &ops[w]
				for i := lo; i < hi; i++ {
					b := bytes.TrimSpace(lines[i])
					if len(b) == 0 {
						visit(first+i, nil)
						continue
					}
					extra, e := parseLineInto(d, b, op)
					if e == nil && s.Opts.Strict && len(extra) > 0 {
						e = &InputError{Field: extra[0], Msg: "unknown field (--strict)"}
					}
					if e != nil {
						e.Line, e.File = first+i, s.Opts.File
						errs[i] = e
						return
					}
					unknown[i] = extra
					visit(first+i, op)
				}
			})
		}
		wg.Wait()
		for i := range lines {
			if errs[i] != nil {
				s.err = errs[i]
				return
			}
			if len(bytes.TrimSpace(lines[i])) > 0 {
				s.Ops++
			}
			for _, f := range unknown[i] {
				if _, ok := s.at[f]; !ok {
					s.at[f] = len(s.warns)
					s.warns = append(s.warns, &InputError{File: s.Opts.File, Line: first + i, Field: f})
				}
				s.counts[f]++
			}
		}
		done(first, len(lines))
	})
	if err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	return nil
}

// Warnings are ReadJSONLWith's warnings for the lines read: one per unknown
// field, at the first line it is on.
func (s *StreamReader) Warnings() []*InputError {
	for _, w := range s.warns {
		w.Msg = "unknown field, ignored"
		if n := s.counts[w.Field]; n > 1 {
			w.Msg += fmt.Sprintf(" (on %d lines, the first shown)", n)
		}
	}
	return s.warns
}
