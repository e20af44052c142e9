package core

import (
	"encoding/binary"
	"errors"
	"time"
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

// keyRecordBlob is a saved key's whole record as it goes to disk: the key's
// text (which a hash hit compares), what claim compares (fingerprint,
// created time) and answers (status), then the keyBlob.
func keyRecordBlob(key string, fp keyPrint, created time.Duration, status int, scope, requestID string, body []byte) []byte {
	blob := keyBlob(scope, requestID, body)
	b := make([]byte, 0, 3*binary.MaxVarintLen64+len(key)+len(fp)+len(blob))
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = append(b, fp[:]...)
	b = binary.AppendVarint(b, int64(created))
	b = binary.AppendUvarint(b, uint64(uint32(int32(status))))
	return append(b, blob...)
}

// parseKeyRecord undoes keyRecordBlob: the record as a saved keyRec whose
// answer is in memory, and the key's text.
func parseKeyRecord(b []byte) (*keyRec, string, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, "", errBadKeyBlob
	}
	key := string(b[w : w+int(n)])
	b = b[w+int(n):]
	e := &keyRec{}
	if len(b) < len(e.fp) {
		return nil, "", errBadKeyBlob
	}
	b = b[copy(e.fp[:], b):]
	created, w := binary.Varint(b)
	if w <= 0 {
		return nil, "", errBadKeyBlob
	}
	b = b[w:]
	status, w := binary.Uvarint(b)
	if w <= 0 || status > 1<<32-1 {
		return nil, "", errBadKeyBlob
	}
	scope, requestID, body, err := parseKeyBlob(b[w:])
	if err != nil {
		return nil, "", err
	}
	e.created, e.status = time.Duration(created), int32(uint32(status))
	e.mem = &keyMem{key: key, scope: scope, requestID: requestID, body: body}
	return e, key, nil
}
