package spill

// Packed is a Ref in 8 bytes instead of 16 (a Ref's int32 is padded): an
// index that keeps one handle per record for a whole run (fakepsp's
// idempotency keys, issue 54) pays half.
type Packed uint64

// packedLenBits is the length's share of a Packed: blobs under 16 MiB,
// starting in the first 1 TiB of the file, which a run's records are.
const packedLenBits = 24

// Pack returns r in 8 bytes, or false when r's blob is too long or starts
// too far in the file to fit: the caller keeps the Ref then.
func (r Ref) Pack() (Packed, bool) {
	if r.n < 0 || r.n >= 1<<packedLenBits || r.off < 0 || r.off >= 1<<(64-packedLenBits) {
		return 0, false
	}
	return Packed(uint64(r.off)<<packedLenBits | uint64(r.n)), true
}

// Ref undoes Pack.
func (p Packed) Ref() Ref {
	return Ref{off: int64(p >> packedLenBits), n: int32(p & (1<<packedLenBits - 1))}
}
