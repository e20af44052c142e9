package history

import (
	"math"
	"strings"
)

// fastLine decodes one history line without encoding/json, for speed: a 1M-op
// file is mostly this loop. It handles the plain shape the recorder writes
// and most converters produce (known fields, ASCII strings without escapes,
// integers, true/false, one object per line). On anything else it returns
// ok=false and the line goes to encoding/json (parseSlow), which also words
// every error, so both paths accept and refuse exactly the same lines.
//
// The strings an op keeps are copied into strs (jsonlarena.go), not sliced
// out of buf, so the file's bytes can go once it is read. unknown collects
// fields no op kind knows, for the warnings.
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
	strs    strArena
}

// reset makes d ready for the next line, keeping its slab and arena.
func (d *fastLine) reset(b []byte) {
	sl, st := d.slab, d.strs
	*d = fastLine{buf: b, slab: sl, strs: st}
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
			d.process, ok = d.kept()
			d.w.Process = &d.process
		case "op":
			d.opName, ok = d.kept()
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
			d.w.Intent, ok = d.kept()
		case "payment_id":
			d.w.PaymentID, ok = d.kept()
		case "region":
			d.w.Region, ok = d.kept()
		case "input":
			d.hasIn, ok = true, d.object(d.inputField)
		case "output":
			d.hasOut, ok = true, d.object(d.outputField)
		default:
			if knownFold(knownTop, key) {
				return false // a field this loop does not decode: encoding/json does
			}
			d.unknown = append(d.unknown, strings.Clone(key))
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
	case "region":
		return 256
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
		in.Fingerprint, ok = d.kept()
	case "amount":
		var v int64
		v, ok = d.int()
		in.Amount = d.slab.int64(v)
	case "currency":
		in.Currency, ok = d.kept()
	case "psp_key":
		in.PSPKey, ok = d.kept()
	case "charge_id":
		in.ChargeID, ok = d.kept()
	case "merchant":
		in.Merchant, ok = d.kept()
	case "event_id":
		in.EventID, ok = d.kept()
	case "replace_id":
		in.ReplaceID, ok = d.kept()
	case "recipient":
		in.Recipient, ok = d.kept()
	case "request":
		in.Request, ok = d.kept()
	case "day":
		in.Day, ok = d.kept()
	case "device":
		in.Device, ok = d.kept()
	case "item":
		in.Item, ok = d.kept()
	case "value":
		in.Value, ok = d.kept()
	case "counter":
		in.Counter, ok = d.int64p()
	case "phone_time":
		in.PhoneTime, ok = d.int64p()
	case "message":
		in.Message, ok = d.kept()
	case "from":
		in.From, ok = d.kept()
	case "to":
		in.To, ok = d.kept()
	case "offset":
		in.Offset, ok = d.int64p()
	case "metadata":
		if in.Metadata != nil {
			return false // a repeated object: encoding/json merges them
		}
		in.Metadata = map[string]string{}
		ok = d.object(func(k string) bool {
			v, ok := d.kept()
			in.Metadata[d.strs.keep(k)] = v
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
		out.Outcome, ok = d.kept()
	case "payment_id":
		out.PaymentID, ok = d.kept()
	case "charge_id":
		out.ChargeID, ok = d.kept()
	case "refund_id":
		out.RefundID, ok = d.kept()
	case "shown":
		var v int64
		v, ok = d.int()
		if v > math.MaxInt32 || v < math.MinInt32 {
			return false
		}
		out.Shown = d.slab.int(int(v))
	case "alert":
		out.Alert, ok = d.boolp()
	case "balance":
		out.Balance, ok = d.int64p()
	case "total":
		out.Total, ok = d.int64p()
	case "tag":
		out.Tag, ok = d.int64p()
	case "value":
		out.Value, ok = d.kept()
	case "stored":
		out.Stored, ok = d.boolp()
	case "folders":
		out.Folders, ok = d.strings()
	default:
		if knownFold(knownOutput, key) {
			return false
		}
		d.unknown = append(d.unknown, "output."+key)
		return d.skipValue()
	}
	return ok
}

// int64p reads an integer into the slab.
func (d *fastLine) int64p() (*int64, bool) {
	v, ok := d.int()
	return d.slab.int64(v), ok
}

// boolp reads true or false into the slab; null is left to encoding/json.
func (d *fastLine) boolp() (*bool, bool) {
	d.skipWS()
	switch {
	case d.lit("true"):
		return d.slab.bool(true), true
	case d.lit("false"):
		return d.slab.bool(false), true
	}
	return nil, false
}

// strings reads an array of strings. [] is an empty list, not nil, as
// encoding/json makes it: an empty folders list says the message is nowhere.
// null is left to encoding/json.
func (d *fastLine) strings() (*[]string, bool) {
	d.skipWS()
	if !d.eat('[') {
		return nil, false
	}
	list := []string{}
	for first := true; ; first = false {
		d.skipWS()
		if d.eat(']') {
			return &list, true
		}
		if !first && !d.eat(',') {
			return nil, false
		}
		s, ok := d.kept()
		if !ok {
			return nil, false
		}
		list = append(list, s)
	}
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
