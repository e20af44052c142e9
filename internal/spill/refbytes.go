package spill

import "encoding/binary"

// AppendRef appends r to b, for a record on disk that names other records
// (fakepsp's PaymentIntents name their versions' JSON).
func AppendRef(b []byte, r Ref) []byte {
	b = binary.AppendVarint(b, r.off)
	return binary.AppendUvarint(b, uint64(r.n))
}

// ReadRef reads a Ref AppendRef wrote at the start of b; n is how many
// bytes it took, 0 when b does not start with one.
func ReadRef(b []byte) (r Ref, n int) {
	off, k := binary.Varint(b)
	if k <= 0 {
		return Ref{}, 0
	}
	ln, m := binary.Uvarint(b[k:])
	if m <= 0 || ln > 1<<31-1 {
		return Ref{}, 0
	}
	return Ref{off: off, n: int32(ln)}, k + m
}
