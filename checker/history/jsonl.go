package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// InputError is a line of a history file that cannot be read: it names the
// line (1-based) and the field, so a user converting their own logs can fix it.
type InputError struct {
	File  string // set by callers that know the file name
	Line  int
	Field string // empty when the line is not JSON at all
	Msg   string
}

func (e *InputError) Error() string {
	name := e.File
	if name == "" {
		name = "history"
	}
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", name, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %q: %s", name, e.Line, e.Field, e.Msg)
}

// maxLine bounds one line, so a runaway line is an error, not a parse of
// gigabytes.
const maxLine = 16 << 20

// wireOp mirrors Op with presence made visible, decoded in one pass.
type wireOp struct {
	Process   *string `json:"process"`
	Op        *string `json:"op"`
	Call      *int64  `json:"call"`
	Return    optInt  `json:"return"`
	Intent    string  `json:"intent"`
	PaymentID string  `json:"payment_id"`
	Region    string  `json:"region"`
	Input     *Input  `json:"input"`
	Output    *Output `json:"output"`
}

// optInt tells a missing field (set false) from null and from a number.
type optInt struct {
	set, null bool
	v         int64
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	o.set = true
	if string(b) == "null" {
		o.null = true
		return nil
	}
	if err := json.Unmarshal(b, &o.v); err != nil {
		return &InputError{Field: "return", Msg: "want an integer or null, got " + string(b)}
	}
	return nil
}

// ReadJSONL reads a history strictly (HISTORY.md): any line that does not
// parse, lacks a required field, names an unknown op or returns before its
// call is an *InputError naming the first such line. Unknown extra fields are
// allowed (ReadJSONLWith reports them); blank lines are skipped. Lines are
// parsed on all cores.
func ReadJSONL(r io.Reader) (History, error) {
	h, _, err := ReadJSONLWith(r, ReadOptions{})
	return h, err
}

// ReadOptions tune ReadJSONLWith.
type ReadOptions struct {
	// File names the input in errors and warnings ("history" when empty).
	File string
	// Strict makes an unknown field an error instead of a warning.
	Strict bool
}

// ReadJSONLWith is ReadJSONL that also returns one warning per unknown field
// name (a misspelt "ammount" is otherwise silently ignored): the first line
// it is on, and on how many lines. With Strict the first unknown field is
// the error.
func ReadJSONLWith(r io.Reader, o ReadOptions) (History, []*InputError, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, nil, &InputError{File: o.File, Line: 1, Msg: "read: " + err.Error()}
	}
	// Counted first: appending a million lines one by one would copy the
	// slice some 30 times and leave 100 MB of garbage to collect.
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		if i > maxLine {
			return nil, nil, &InputError{File: o.File, Line: len(lines) + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		lines = append(lines, data[:i])
		data = data[min(i+1, len(data)):]
	}
	ops := make([]Op, len(lines))
	blank := make([]bool, len(lines))
	errs := make([]*InputError, len(lines))
	unknown := make([][]string, len(lines))
	workers := runtime.GOMAXPROCS(0)
	chunk := max((len(lines)+workers-1)/workers, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < len(lines); lo += chunk {
		hi := min(lo+chunk, len(lines))
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			var d fastLine
			for i := lo; i < hi; i++ {
				b := bytes.TrimSpace(lines[i])
				if len(b) == 0 {
					blank[i] = true
					continue
				}
				extra, e := parseLineInto(&d, b, &ops[i])
				if e == nil && o.Strict && len(extra) > 0 {
					e = &InputError{Field: extra[0], Msg: "unknown field (--strict)"}
				}
				if e != nil {
					e.Line, e.File = i+1, o.File
					errs[i] = e
					return // lines after the first error in a chunk do not matter
				}
				unknown[i] = extra
			}
		}(lo, hi)
	}
	wg.Wait()
	var warns []*InputError
	at := map[string]int{}
	counts := map[string]int{}
	blanks := 0
	for i := range ops {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		for _, f := range unknown[i] {
			if _, ok := at[f]; !ok {
				at[f] = len(warns)
				warns = append(warns, &InputError{File: o.File, Line: i + 1, Field: f})
			}
			counts[f]++
		}
		if blank[i] {
			blanks++
		}
	}
	h := History(ops)
	if blanks > 0 {
		h = ops[:0]
		for i := range ops {
			if !blank[i] {
				h = append(h, ops[i])
			}
		}
	}
	for _, w := range warns {
		w.Msg = "unknown field, ignored"
		if n := counts[w.Field]; n > 1 {
			w.Msg += fmt.Sprintf(" (on %d lines, the first shown)", n)
		}
	}
	if len(h) == 0 {
		return nil, warns, nil
	}
	return h, warns, nil
}

// readAll reads r in one allocation when it can tell its size (a file).
func readAll(r io.Reader) ([]byte, error) {
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			// Exactly the file's size: a bytes.Buffer would double it to
			// keep spare room for a read that never comes.
			buf := make([]byte, fi.Size())
			n, err := io.ReadFull(r, buf)
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return buf[:n], nil // the file shrank while we read it
			}
			if err != nil {
				return nil, err
			}
			rest, err := io.ReadAll(r) // it grew
			if len(rest) > 0 {
				buf = append(buf, rest...)
			}
			return buf, err
		}
	}
	return io.ReadAll(r)
}

// parseLineFields decodes one line, on the fast path when it can, and lists
// its unknown fields.
func parseLineFields(b []byte) (Op, []string, *InputError) {
	var d fastLine
	var op Op
	extra, e := parseLineInto(&d, b, &op)
	return op, extra, e
}

// parseLineInto decodes b into op with d (reused line to line).
func parseLineInto(d *fastLine, b []byte, op *Op) ([]string, *InputError) {
	d.reset(b)
	if d.decode() {
		return d.unknown, finishInto(&d.w, op, &d.slab)
	}
	var w wireOp
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, jsonError(err)
	}
	if e := finishInto(&w, op, &d.slab); e != nil {
		return nil, e
	}
	return slowUnknown(b), nil
}

func parseLine(b []byte) (Op, *InputError) {
	var w wireOp
	if err := json.Unmarshal(b, &w); err != nil {
		return Op{}, jsonError(err)
	}
	var op Op
	e := finishInto(&w, &op, &slab{})
	return op, e
}

// finishInto applies the required fields of HISTORY.md to a decoded line.
func finishInto(w *wireOp, op *Op, sl *slab) *InputError {
	switch {
	case w.Process == nil || *w.Process == "":
		return missing("process")
	case w.Op == nil:
		return missing("op")
	case !knownOp(*w.Op):
		return &InputError{Field: "op", Msg: fmt.Sprintf("unknown op %q", *w.Op)}
	case w.Call == nil:
		return missing("call")
	case !w.Return.set:
		return missing("return")
	}
	*op = Op{Process: *w.Process, Op: *w.Op, Call: *w.Call, Intent: w.Intent, PaymentID: w.PaymentID, Region: w.Region}
	if !w.Return.null {
		if w.Return.v < op.Call {
			return &InputError{Field: "return", Msg: fmt.Sprintf("return %d is before call %d", w.Return.v, op.Call)}
		}
		op.Return = sl.int64(w.Return.v)
	}
	if w.Input != nil {
		op.Input = *w.Input
	}
	if op.Return != nil {
		op.Output = w.Output
	}
	return validate(op)
}

// slowUnknown lists the unknown fields of a line encoding/json decoded
// (which matches field names in any case).
func slowUnknown(b []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return nil
	}
	var out []string
	for k, v := range top {
		if !knownFold(knownTop, k) {
			out = append(out, k)
			continue
		}
		var known map[string]bool
		switch strings.ToLower(k) {
		case "input":
			known = knownInput
		case "output":
			known = knownOutput
		default:
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) != nil {
			continue
		}
		for sk := range sub {
			if !knownFold(known, sk) {
				out = append(out, strings.ToLower(k)+"."+sk)
			}
		}
	}
	sort.Strings(out)
	return out
}

func knownOutcome(o string) bool {
	switch o {
	case OutcomeSucceeded, OutcomeFailed, OutcomeProcessing, OutcomeInProgress, OutcomeMismatch, OutcomeVoid, OutcomeError:
		return true
	}
	return false
}

func first(errs ...*InputError) *InputError {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func missing(field string) *InputError { return &InputError{Field: field, Msg: "missing"} }

func jsonError(err error) *InputError {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := shapeFieldPath(te.Field)
		if field == "" {
			return &InputError{Msg: fmt.Sprintf("want a JSON object, got %s", te.Value)}
		}
		return &InputError{Field: field, Msg: fmt.Sprintf("want %s, got %s", jsonKind(te.Type), te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &InputError{Msg: fmt.Sprintf("not valid JSON at byte %d: %v", se.Offset, se)}
	}
	return &InputError{Msg: "not valid JSON: " + err.Error()}
}

// jsonKind names a Go type the way a JSON Lines author thinks of it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}
