package spill

import (
	"encoding/binary"
	"fmt"
)

// refLen is a Ref's encoding: its offset (8 bytes), then its length (4).
const refLen = 12

// MarshalBinary lets a record that names a blob (the Ref of an event's JSON)
// be kept in a Log: gob encodes a Ref through it, as it cannot see its
// fields.
func (r Ref) MarshalBinary() ([]byte, error) {
	b := make([]byte, refLen)
	binary.LittleEndian.PutUint64(b, uint64(r.off))
	binary.LittleEndian.PutUint32(b[8:], uint32(r.n))
	return b, nil
}

// UnmarshalBinary reads what MarshalBinary wrote.
func (r *Ref) UnmarshalBinary(b []byte) error {
	if len(b) != refLen {
		return fmt.Errorf("spill: a Ref is %d bytes, not %d", refLen, len(b))
	}
	r.off, r.n = int64(binary.LittleEndian.Uint64(b)), int32(binary.LittleEndian.Uint32(b[8:]))
	return nil
}
