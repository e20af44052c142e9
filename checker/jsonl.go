package checker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
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
// allowed; blank lines are skipped. Lines are parsed on all cores.
func ReadJSONL(r io.Reader) (History, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &InputError{Line: 1, Msg: "read: " + err.Error()}
	}
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		if i > maxLine {
			return nil, &InputError{Line: len(lines) + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		lines = append(lines, data[:i])
		data = data[min(i+1, len(data)):]
	}
	ops := make([]Op, len(lines))
	blank := make([]bool, len(lines))
	errs := make([]*InputError, len(lines))
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(lines) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(lines); lo += chunk {
		hi := min(lo+chunk, len(lines))
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				b := bytes.TrimSpace(lines[i])
				if len(b) == 0 {
					blank[i] = true
					continue
				}
				op, e := parseLine(b)
				if e != nil {
					e.Line = i + 1
					errs[i] = e
					return // lines after the first error in a chunk do not matter
				}
				ops[i] = op
			}
		}(lo, hi)
	}
	wg.Wait()
	h := ops[:0]
	for i := range ops {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if !blank[i] {
			h = append(h, ops[i])
		}
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

func parseLine(b []byte) (Op, *InputError) {
	var w wireOp
	if err := json.Unmarshal(b, &w); err != nil {
		return Op{}, jsonError(err)
	}
	var op Op
	switch {
	case w.Process == nil || *w.Process == "":
		return op, missing("process")
	case w.Op == nil:
		return op, missing("op")
	case !knownOp(*w.Op):
		return op, &InputError{Field: "op", Msg: fmt.Sprintf("unknown op %q", *w.Op)}
	case w.Call == nil:
		return op, missing("call")
	case !w.Return.set:
		return op, missing("return")
	}
	op = Op{Process: *w.Process, Op: *w.Op, Call: *w.Call, Intent: w.Intent, PaymentID: w.PaymentID}
	if !w.Return.null {
		if w.Return.v < op.Call {
			return op, &InputError{Field: "return", Msg: fmt.Sprintf("return %d is before call %d", w.Return.v, op.Call)}
		}
		ret := w.Return.v
		op.Return = &ret
	}
	if w.Input != nil {
		op.Input = *w.Input
	}
	if op.Return != nil {
		op.Output = w.Output
	}
	if e := validate(&op); e != nil {
		return op, e
	}
	return op, nil
}

// validate applies HISTORY.md's per-kind required fields.
func validate(op *Op) *InputError {
	if isShapeOp(op.Op) {
		return validateShape(op)
	}
	in := &op.Input
	need := func(field, v string) *InputError {
		if v == "" {
			return missing(field)
		}
		return nil
	}
	needAmount := func() *InputError {
		if in.Amount == nil {
			return missing("input.amount")
		}
		return nil
	}
	needScope := func() *InputError {
		if op.Intent == "" && op.PaymentID == "" && in.Metadata["intent"] == "" && in.Metadata["payment_id"] == "" {
			return &InputError{Field: "intent", Msg: "missing (an effect names its intent or payment_id)"}
		}
		return nil
	}
	var e *InputError
	switch op.Op {
	case OpCreate:
		e = first(need("intent", op.Intent), need("input.fingerprint", in.Fingerprint), needAmount(), need("input.currency", in.Currency))
	case OpResolve:
		e = need("intent", op.Intent)
	case OpCharge:
		e = first(needScope(), need("input.psp_key", in.PSPKey), needAmount())
	case OpRefund:
		e = first(needScope(), need("input.psp_key", in.PSPKey), needAmount(), need("input.charge_id", in.ChargeID))
	case OpCredit:
		e = first(needScope(), need("input.merchant", in.Merchant), needAmount(), need("input.event_id", in.EventID))
	case OpNotify:
		e = first(needScope(), need("input.replace_id", in.ReplaceID), need("input.recipient", in.Recipient))
	case OpBalance:
		e = need("input.merchant", in.Merchant)
	case OpSink:
		e = first(need("input.merchant", in.Merchant), need("input.day", in.Day))
	}
	if e != nil || op.Return == nil {
		if op.Return == nil {
			op.Output = nil // HISTORY.md: output is ignored when return is null
		}
		return e
	}
	out := op.Output
	has := out != nil
	switch op.Op {
	case OpCreate, OpResolve:
		if !has || out.Outcome == "" {
			return missing("output.outcome")
		}
		if !knownOutcome(out.Outcome) {
			return &InputError{Field: "output.outcome", Msg: fmt.Sprintf("unknown outcome %q", out.Outcome)}
		}
	case OpCharge:
		if !has || out.ChargeID == "" {
			return missing("output.charge_id")
		}
	case OpRefund:
		if !has || out.RefundID == "" {
			return missing("output.refund_id")
		}
	case OpNotify:
		if !has || out.Shown == nil {
			return missing("output.shown")
		}
	case OpBalance:
		if !has || out.Balance == nil {
			return missing("output.balance")
		}
	case OpSink:
		return validSinkOutput(out)
	}
	return nil
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

// WriteJSONL writes h as JSON Lines, one op a line, in h's order.
func WriteJSONL(w io.Writer, h History) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range h {
		if err := enc.Encode(&h[i]); err != nil {
			return fmt.Errorf("write history op %d: %w", i, err)
		}
	}
	return bw.Flush()
}
