package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"sync"
)

// WriteJSONL writes h as JSON Lines, one op a line, in h's order.
//
// Each line is exactly what encoding/json (HTML escaping off) writes for the
// Op, field for field, but built with strconv.Append*: reflection was most of
// the time `idemcheck gen` took on a 1M-op history. jsonlwrite_test.go holds
// the two byte for byte together. Blocks of lines are built on all cores:
// what is left is waiting on memory (a shuffled history's strings and
// outputs are all over the heap), which cores overlap.
func WriteJSONL(w io.Writer, h History) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 64<<10)
	}
	workers := runtime.GOMAXPROCS(0)
	if len(h) < 2*writeBlock {
		workers = 1
	}
	bufs := make([][]byte, workers)
	encs := make([]lineEncoder, workers)
	for lo := 0; lo < len(h); lo += workers * writeBlock {
		var wg sync.WaitGroup
		for k := range workers {
			from := min(lo+k*writeBlock, len(h))
			to := min(from+writeBlock, len(h))
			wg.Go(func() { bufs[k] = encs[k].lines(bufs[k][:0], h[from:to]) })
		}
		wg.Wait()
		for k := range workers {
			if _, err := bw.Write(bufs[k]); err != nil {
				return fmt.Errorf("write history op %d: %w", min(lo+k*writeBlock, len(h)), err)
			}
		}
	}
	if ok {
		return nil // the caller's buffer: the caller flushes it
	}
	return bw.Flush()
}

// writeBlock is how many lines one core builds at a time (about 2 MB).
const writeBlock = 8192

// lines appends one line per op of h.
func (e *lineEncoder) lines(b []byte, h History) []byte {
	for i := range h {
		b = appendOp(b, &h[i], e)
		b = append(b, '\n')
	}
	return b
}

// lineEncoder holds what one core's lines reuse: a map's keys and, for the
// rare string that needs escaping, encoding/json itself.
type lineEncoder struct {
	keys []string
	esc  bytes.Buffer
	enc  *json.Encoder
}

// fields appends `"key":` pairs after an opening brace, with commas.
type fields struct {
	b     []byte
	first bool
}

func (f *fields) key(k string) {
	if !f.first {
		f.b = append(f.b, ',')
	}
	f.first = false
	f.b = append(f.b, '"')
	f.b = append(f.b, k...)
	f.b = append(f.b, '"', ':')
}

func appendOp(b []byte, op *Op, e *lineEncoder) []byte {
	f := fields{b: append(b, '{'), first: true}
	f.key("process")
	f.b = e.str(f.b, op.Process)
	f.key("op")
	f.b = e.str(f.b, op.Op)
	f.key("call")
	f.b = strconv.AppendInt(f.b, op.Call, 10)
	f.key("return")
	if op.Return == nil {
		f.b = append(f.b, "null"...)
	} else {
		f.b = strconv.AppendInt(f.b, *op.Return, 10)
	}
	e.optStr(&f, "intent", op.Intent)
	e.optStr(&f, "payment_id", op.PaymentID)
	f.key("input")
	f.b = e.appendInput(f.b, &op.Input)
	if op.Output != nil {
		f.key("output")
		f.b = e.appendOutput(f.b, op.Output)
	}
	e.optStr(&f, "region", op.Region)
	return append(f.b, '}')
}

// appendInput follows Input's field order, ShapeInput's fields in its place.
func (e *lineEncoder) appendInput(b []byte, in *Input) []byte {
	f := fields{b: append(b, '{'), first: true}
	e.optStr(&f, "fingerprint", in.Fingerprint)
	optInt64(&f, "amount", in.Amount)
	e.optStr(&f, "currency", in.Currency)
	e.optStr(&f, "psp_key", in.PSPKey)
	e.optStr(&f, "charge_id", in.ChargeID)
	e.optStr(&f, "merchant", in.Merchant)
	e.optStr(&f, "event_id", in.EventID)
	e.optStr(&f, "replace_id", in.ReplaceID)
	e.optStr(&f, "recipient", in.Recipient)
	e.optStr(&f, "request", in.Request)
	if len(in.Metadata) > 0 {
		f.key("metadata")
		f.b = e.appendMap(f.b, in.Metadata)
	}
	e.optStr(&f, "day", in.Day)
	s := &in.ShapeInput
	e.optStr(&f, "device", s.Device)
	e.optStr(&f, "item", s.Item)
	e.optStr(&f, "value", s.Value)
	optInt64(&f, "counter", s.Counter)
	optInt64(&f, "phone_time", s.PhoneTime)
	e.optStr(&f, "message", s.Message)
	e.optStr(&f, "from", s.From)
	e.optStr(&f, "to", s.To)
	optInt64(&f, "offset", s.Offset)
	return append(f.b, '}')
}

// appendOutput follows Output's field order, ShapeOutput's fields in its place.
func (e *lineEncoder) appendOutput(b []byte, out *Output) []byte {
	f := fields{b: append(b, '{'), first: true}
	e.optStr(&f, "outcome", out.Outcome)
	e.optStr(&f, "payment_id", out.PaymentID)
	e.optStr(&f, "charge_id", out.ChargeID)
	e.optStr(&f, "refund_id", out.RefundID)
	if out.Shown != nil {
		f.key("shown")
		f.b = strconv.AppendInt(f.b, int64(*out.Shown), 10)
	}
	optBool(&f, "alert", out.Alert)
	optInt64(&f, "balance", out.Balance)
	optInt64(&f, "total", out.Total)
	optInt64(&f, "tag", out.Tag)
	s := &out.ShapeOutput
	e.optStr(&f, "value", s.Value)
	if s.Folders != nil {
		f.key("folders")
		if *s.Folders == nil {
			f.b = append(f.b, "null"...)
		} else {
			f.b = append(f.b, '[')
			for i, v := range *s.Folders {
				if i > 0 {
					f.b = append(f.b, ',')
				}
				f.b = e.str(f.b, v)
			}
			f.b = append(f.b, ']')
		}
	}
	optBool(&f, "stored", s.Stored)
	return append(f.b, '}')
}

// appendMap writes a map's keys sorted, as encoding/json does.
func (e *lineEncoder) appendMap(b []byte, m map[string]string) []byte {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	sort.Strings(e.keys)
	b = append(b, '{')
	for i, k := range e.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, k)
		b = append(b, ':')
		b = e.str(b, m[k])
	}
	return append(b, '}')
}

func (e *lineEncoder) optStr(f *fields, k, v string) {
	if v != "" {
		f.key(k)
		f.b = e.str(f.b, v)
	}
}

func optInt64(f *fields, k string, v *int64) {
	if v != nil {
		f.key(k)
		f.b = strconv.AppendInt(f.b, *v, 10)
	}
}

func optBool(f *fields, k string, v *bool) {
	if v != nil {
		f.key(k)
		f.b = strconv.AppendBool(f.b, *v)
	}
}

// str appends s quoted. Printable ASCII without '"' or '\\' (every string a
// recorder writes) is copied; anything else is left to encoding/json, whose
// escapes (control characters, invalid UTF-8, U+2028) are the format's.
func (e *lineEncoder) str(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return e.escaped(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (e *lineEncoder) escaped(b []byte, s string) []byte {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.esc)
		e.enc.SetEscapeHTML(false)
	}
	e.esc.Reset()
	_ = e.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(e.esc.Bytes(), []byte("\n"))...)
}
