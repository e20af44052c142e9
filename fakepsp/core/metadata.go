package core

import (
	"encoding/binary"
	"sort"
)

// Metadata is a payment's metadata, immutable and compact: its pairs sorted
// by key in one string, each key and value preceded by its length as a
// uvarint, after a marker byte that tells an empty set from none. A Go map
// of two pairs holds about 330 bytes of heap for every payment of a soak;
// this holds the pairs' bytes and a string header, and no copy of the
// request's strings. The zero value is no metadata (a nil map).
type Metadata struct{ enc string }

const metadataMarker = "m"

// MetadataOf is m in compact form; a nil m is the zero Metadata.
func MetadataOf(m map[string]string) Metadata {
	if m == nil {
		return Metadata{}
	}
	keys := make([]string, 0, len(m))
	n := len(metadataMarker)
	for k, v := range m {
		keys = append(keys, k)
		n += 2*binary.MaxVarintLen64 + len(k) + len(v)
	}
	sort.Strings(keys)
	b := make([]byte, 0, n)
	b = append(b, metadataMarker...)
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, uint64(len(m[k])))
		b = append(b, m[k]...)
	}
	return Metadata{enc: string(b)} // a copy of b's bytes, not of its capacity
}

// IsNil says there is no metadata at all (not an empty set).
func (md Metadata) IsNil() bool { return md.enc == "" }

// each calls fn on every pair in key order until fn says stop.
func (md Metadata) each(fn func(k, v string) bool) {
	s := md.enc
	if s == "" {
		return
	}
	s = s[len(metadataMarker):]
	for len(s) > 0 {
		var k, v string
		k, s = nextField(s)
		v, s = nextField(s)
		if !fn(k, v) {
			return
		}
	}
}

func nextField(s string) (field, rest string) {
	n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	return s[w : w+int(n)], s[w+int(n):]
}

// Get is the value of key k, and whether it is set.
func (md Metadata) Get(k string) (string, bool) {
	var got string
	found := false
	md.each(func(key, v string) bool {
		if key == k {
			got, found = v, true
			return false
		}
		return true
	})
	return got, found
}

// Len is how many pairs there are.
func (md Metadata) Len() int {
	n := 0
	md.each(func(string, string) bool { n++; return true })
	return n
}

// Map is a fresh map of the pairs, nil for no metadata: what a rendering
// or the ground truth is given, never shared with the payment.
func (md Metadata) Map() map[string]string {
	if md.IsNil() {
		return nil
	}
	m := map[string]string{}
	md.each(func(k, v string) bool { m[k] = v; return true })
	return m
}
