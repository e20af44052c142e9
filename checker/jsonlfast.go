package checker

import (
	"math"
	"strings"
	"unsafe"
)

// fastLine decodes one history line without encoding/json, for speed: a 1M-op
// file is mostly this loop. It handles the plain shape the recorder writes
// and most converters produce (known fields, ASCII strings without escapes,
// integers, true/false, one object per line). On anything else it returns
// ok=false and the line goes to encoding/json (parseSlow), which also words
// every error, so both paths accept and refuse exactly the same lines.
//
// Strings are sliced out of buf, the file's bytes read once and never
// written again (see ReadJSONLWith), so a field costs no allocation.
// unknown collects fields no op kind knows, for the warnings.
type fastLine struct {
	buf     []byte
	pos     int
	w       wireOp
	call    int64
	process string
	opName  string
	in      Input
	out     Output
	hasIn   bool
	hasOut  bool
	depth   int
	unknown []string
	slab    slab
}

// slab hands out the small values an op points to from shared blocks: a
// million ops would otherwise be four million tiny allocations.
type slab struct {
	ints  []int64
	nums  []int
	bools []bool
	outs  []Output
}

const slabSize = 4096

func (s *slab) int64(v int64) *int64 {
	if len(s.ints) == 0 {
		s.ints = make([]int64, slabSize)
	}
	p := &s.ints[0]
	s.ints = s.ints[1:]
	*p = v
	return p
}

func (s *slab) int(v int) *int {
	if len(s.nums) == 0 {
		s.nums = make([]int, slabSize)
	}
	p := &s.nums[0]
	s.nums = s.nums[1:]
	*p = v
	return p
}

func (s *slab) bool(v bool) *bool {
	if len(s.bools) == 0 {
		s.bools = make([]bool, slabSize)
	}
	p := &s.bools[0]
	s.bools = s.bools[1:]
	*p = v
	return p
}

func (s *slab) output(v *Output) *Output {
	if len(s.outs) == 0 {
		s.outs = make([]Output, slabSize)
	}
	p := &s.outs[0]
	s.outs = s.outs[1:]
	*p = *v
	return p
}

// reset makes d ready for the next line, keeping its slab.
func (d *fastLine) reset(b []byte) {
	sl := d.slab
	*d = fastLine{buf: b, slab: sl}
}

func (d *fastLine) decode() bool {
	d.skipWS()
	if !d.eat('{') {
		return false
	}
	first := true
	var seen uint16 // top-level fields read, by topBit
	for {
		d.skipWS()
		if d.eat('}') {
			break
		}
		if !first && !d.eat(',') {
			return false
		}
		first = false
		key, ok := d.key()
		if !ok {
			return false
		}
		if bit := topBit(key); bit != 0 {
			if seen&bit != 0 {
				return false // a repeated field: encoding/json's rules decide
			}
			seen |= bit
		}
		switch key {
		case "process":
			d.process, ok = d.str()
			d.w.Process = &d.process
		case "op":
			d.opName, ok = d.str()
			d.w.Op = &d.opName
		case "call":
			d.call, ok = d.int()
			d.w.Call = &d.call
		case "return":
			d.skipWS()
			if d.lit("null") {
				d.w.Return = optInt{set: true, null: true}
			} else {
				var v int64
				v, ok = d.int()
				d.w.Return = optInt{set: true, v: v}
			}
		case "intent":
			d.w.Intent, ok = d.str()
		case "payment_id":
			d.w.PaymentID, ok = d.str()
		case "input":
			d.hasIn, ok = true, d.object(d.inputField)
		case "output":
			d.hasOut, ok = true, d.object(d.outputField)
		default:
			if knownFold(knownTop, key) {
				return false // a field this loop does not decode: encoding/json does
			}
			d.unknown = append(d.unknown, key)
			ok = d.skipValue()
		}
		if !ok {
			return false
		}
	}
	d.skipWS()
	if d.pos != len(d.buf) {
		return false
	}
	if d.hasIn {
		d.w.Input = &d.in
	}
	if d.hasOut {
		d.w.Output = d.slab.output(&d.out)
	}
	return true
}

func topBit(key string) uint16 {
	switch key {
	case "process":
		return 1
	case "op":
		return 2
	case "call":
		return 4
	case "return":
		return 8
	case "intent":
		return 16
	case "payment_id":
		return 32
	case "input":
		return 64
	case "output":
		return 128
	}
	return 0
}

// knownFold reports whether key names a known field in another case:
// encoding/json matches those, so the line goes to it.
func knownFold(known map[string]bool, key string) bool {
	if known[key] {
		return true
	}
	for k := range known {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

func (d *fastLine) inputField(key string) bool {
	in := &d.in
	var ok bool
	switch key {
	case "fingerprint":
		in.Fingerprint, ok = d.str()
	case "amount":
		var v int64
		v, ok = d.int()
		in.Amount = d.slab.int64(v)
	case "currency":
		in.Currency, ok = d.str()
	case "psp_key":
		in.PSPKey, ok = d.str()
	case "charge_id":
		in.ChargeID, ok = d.str()
	case "merchant":
		in.Merchant, ok = d.str()
	case "event_id":
		in.EventID, ok = d.str()
	case "replace_id":
		in.ReplaceID, ok = d.str()
	case "recipient":
		in.Recipient, ok = d.str()
	case "request":
		in.Request, ok = d.str()
	case "metadata":
		if in.Metadata != nil {
			return false // a repeated object: encoding/json merges them
		}
		in.Metadata = map[string]string{}
		ok = d.object(func(k string) bool {
			v, ok := d.str()
			in.Metadata[k] = v
			return ok
		})
	default:
		if knownFold(knownInput, key) {
			return false
		}
		d.unknown = append(d.unknown, "input."+key)
		return d.skipValue()
	}
	return ok
}

func (d *fastLine) outputField(key string) bool {
	out := &d.out
	var ok bool
	switch key {
	case "outcome":
		out.Outcome, ok = d.str()
	case "payment_id":
		out.PaymentID, ok = d.str()
	case "charge_id":
		out.ChargeID, ok = d.str()
	case "refund_id":
		out.RefundID, ok = d.str()
	case "shown":
		var v int64
		v, ok = d.int()
		if v > math.MaxInt32 || v < math.MinInt32 {
			return false
		}
		out.Shown = d.slab.int(int(v))
	case "alert":
		var b bool
		d.skipWS()
		switch {
		case d.lit("true"):
			b, ok = true, true
		case d.lit("false"):
			ok = true
		}
		out.Alert = d.slab.bool(b)
	case "balance":
		var v int64
		v, ok = d.int()
		out.Balance = d.slab.int64(v)
	default:
		if knownFold(knownOutput, key) {
			return false
		}
		d.unknown = append(d.unknown, "output."+key)
		return d.skipValue()
	}
	return ok
}

// object reads {"k": v, ...}, calling field for each key with the value
// next. null is left to encoding/json.
func (d *fastLine) object(field func(string) bool) bool {
	d.skipWS()
	if !d.eat('{') {
		return false
	}
	for first := true; ; first = false {
		d.skipWS()
		if d.eat('}') {
			return true
		}
		if !first && !d.eat(',') {
			return false
		}
		k, ok := d.key()
		if !ok || !field(k) {
			return false
		}
	}
}

func (d *fastLine) key() (string, bool) {
	d.skipWS()
	k, ok := d.str()
	if !ok {
		return "", false
	}
	d.skipWS()
	return k, d.eat(':')
}

// str reads a string of printable ASCII without escapes.
func (d *fastLine) str() (string, bool) {
	d.skipWS()
	if !d.eat('"') {
		return "", false
	}
	start := d.pos
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			s := d.buf[start:d.pos]
			d.pos++
			if len(s) == 0 {
				return "", true
			}
			return unsafe.String(&s[0], len(s)), true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", false
		}
		d.pos++
	}
	return "", false
}

// int reads a JSON integer that fits int64 (no fraction, no exponent, no
// leading zero).
func (d *fastLine) int() (int64, bool) {
	d.skipWS()
	neg := d.eat('-')
	start := d.pos
	var v uint64
	for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
		if v > (math.MaxInt64+1)/10 {
			return 0, false
		}
		v = v*10 + uint64(d.buf[d.pos]-'0')
		d.pos++
	}
	n := d.pos - start
	if n == 0 || n > 19 || (n > 1 && d.buf[start] == '0') {
		return 0, false
	}
	if d.pos < len(d.buf) {
		if c := d.buf[d.pos]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		if v > math.MaxInt64+1 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// skipValue skips an unknown field's value: a string, number, literal, or
// an object or array of those.
func (d *fastLine) skipValue() bool {
	d.skipWS()
	if d.pos >= len(d.buf) || d.depth > 100 {
		return false
	}
	d.depth++
	defer func() { d.depth-- }()
	switch c := d.buf[d.pos]; {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{':
		return d.object(func(string) bool { return d.skipValue() })
	case c == '[':
		d.pos++
		for first := true; ; first = false {
			d.skipWS()
			if d.eat(']') {
				return true
			}
			if !first && !d.eat(',') {
				return false
			}
			if !d.skipValue() {
				return false
			}
		}
	case c == 't':
		return d.lit("true")
	case c == 'f':
		return d.lit("false")
	case c == 'n':
		return d.lit("null")
	}
	_, ok := d.int()
	return ok
}

func (d *fastLine) skipWS() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

func (d *fastLine) eat(c byte) bool {
	if d.pos < len(d.buf) && d.buf[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *fastLine) lit(s string) bool {
	if len(d.buf)-d.pos >= len(s) && string(d.buf[d.pos:d.pos+len(s)]) == s {
		d.pos += len(s)
		return true
	}
	return false
}
