package core

import "testing"

func TestMetadataEncodedRoundTrips(t *testing.T) {
	for _, m := range []map[string]string{nil, {}, {"b": "2", "a": ""}} {
		md := MetadataOf(m)
		got, ok := MetadataEncoded(md.Encoded())
		if !ok || got != md {
			t.Fatalf("MetadataEncoded(%q) = %v, %v; want %v", md.Encoded(), got, ok, md)
		}
	}
	for _, bad := range []string{"x", "m\x05ab", "m\x01a", "m\x80"} {
		if _, ok := MetadataEncoded(bad); ok {
			t.Errorf("MetadataEncoded(%q) took a damaged form", bad)
		}
	}
}
