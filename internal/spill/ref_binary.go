package spill

import "fmt"

// MarshalBinary lets a record that names a blob (the Ref of an event's JSON)
// be kept in a Log: gob encodes a Ref through it, as it cannot see its
// fields. The bytes are AppendRef's.
func (r Ref) MarshalBinary() ([]byte, error) { return AppendRef(nil, r), nil }

// UnmarshalBinary reads what MarshalBinary wrote.
func (r *Ref) UnmarshalBinary(b []byte) error {
	ref, n := ReadRef(b)
	if n == 0 || n != len(b) {
		return fmt.Errorf("spill: %d bytes are not one Ref", len(b))
	}
	*r = ref
	return nil
}
