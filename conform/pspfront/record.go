package pspfront

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// A record is an exchange's position, status and lost flag as uvarints,
// then its five strings, each a uvarint length and its bytes.

func encodeRecord(n int, x Exchange) []byte {
	strs := [...]string{x.Method, x.Path, x.Key, x.Body, x.RespBody}
	size := 3 * binary.MaxVarintLen64
	for _, s := range strs {
		size += binary.MaxVarintLen64 + len(s)
	}
	b := make([]byte, 0, size)
	lost := uint64(0)
	if x.Lost {
		lost = 1
	}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(x.Status))
	b = binary.AppendUvarint(b, lost)
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	// Exact-size: the log's last chunk keeps these in memory.
	return b[:len(b):len(b)]
}

var errRecord = errors.New("pspfront: a logged exchange is cut short")

// decodeRecord returns the exchange's strings as views of b, which the
// caller must then never change: b is the log's decoded copy, its own.
func decodeRecord(b []byte) (int, Exchange, error) {
	var nums [3]uint64
	for i := range nums {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, Exchange{}, errRecord
		}
		nums[i], b = v, b[k:]
	}
	var strs [5]string
	for i := range strs {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return 0, Exchange{}, errRecord
		}
		if l > 0 {
			strs[i] = unsafe.String(&b[k], int(l))
		}
		b = b[k+int(l):]
	}
	x := Exchange{Method: strs[0], Path: strs[1], Key: strs[2], Body: strs[3], RespBody: strs[4],
		Status: int(nums[1]), Lost: nums[2] == 1}
	return int(nums[0]), x, nil
}
