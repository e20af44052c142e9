package core

import (
	"encoding/binary"
	"errors"
)

// keyBlob is a saved answer as it goes to disk: the first request's scope
// (which a mismatch names) and id (which a replay names), then the body.
func keyBlob(scope, requestID string, body []byte) []byte {
	b := make([]byte, 0, 2*binary.MaxVarintLen32+len(scope)+len(requestID)+len(body))
	b = binary.AppendUvarint(b, uint64(len(scope)))
	b = append(b, scope...)
	b = binary.AppendUvarint(b, uint64(len(requestID)))
	b = append(b, requestID...)
	return append(b, body...)
}

var errBadKeyBlob = errors.New("a saved answer on disk is malformed")

// parseKeyBlob undoes keyBlob.
func parseKeyBlob(b []byte) (scope, requestID string, body []byte, err error) {
	field := func() (string, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return "", false
		}
		f := string(b[w : w+int(n)])
		b = b[w+int(n):]
		return f, true
	}
	scope, ok1 := field()
	requestID, ok2 := field()
	if !ok1 || !ok2 {
		return "", "", nil, errBadKeyBlob
	}
	return scope, requestID, b, nil
}
