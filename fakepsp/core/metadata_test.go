package core

import (
	"reflect"
	"testing"
)

// A metadata set round-trips through its compact form, pairs in any
// order and of any length (a 500-character value needs a two-byte length),
// and none is told from an empty set.
func TestMetadataCompact(t *testing.T) {
	long := string(make([]byte, 500))
	m := map[string]string{"payment_id": "pay_7", "intent": "/pay:phone-1:pay_7", "": "", "long": long}
	md := MetadataOf(m)
	if got := md.Map(); !reflect.DeepEqual(got, m) {
		t.Fatalf("Map() = %q, want %q", got, m)
	}
	if v, ok := md.Get("long"); !ok || v != long || md.Len() != 4 {
		t.Fatalf("Get(long) = %d chars %v, Len %d; want 500 chars true, 4", len(v), ok, md.Len())
	}
	if v, ok := md.Get("missing"); ok || v != "" {
		t.Fatalf("Get(missing) = %q %v, want \"\" false", v, ok)
	}
	if (Metadata{}).Map() != nil || !(Metadata{}).IsNil() {
		t.Fatal("the zero Metadata is not a nil map")
	}
	empty := MetadataOf(map[string]string{})
	if empty.IsNil() || empty.Map() == nil || empty.Len() != 0 {
		t.Fatalf("an empty set: IsNil %v, Map %v, Len %d; want false, {}, 0", empty.IsNil(), empty.Map(), empty.Len())
	}
	if MetadataOf(map[string]string{"b": "2", "a": "1"}) != MetadataOf(map[string]string{"a": "1", "b": "2"}) {
		t.Fatal("the same pairs encode differently")
	}
}
