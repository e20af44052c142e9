package history

import (
	"math"
	"unsafe"
)

// The scanner primitives of fastLine: each reads one JSON token at pos, or
// reports false for anything the fast path leaves to encoding/json.

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
