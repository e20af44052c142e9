package core

import (
	"encoding/binary"
	"strings"
)

// Encoded is md's compact form, for a record on disk: MetadataEncoded
// reads it back without building a map and sorting it again.
func (md Metadata) Encoded() string { return md.enc }

// MetadataEncoded is the Metadata whose compact form is s (Encoded); ok
// is false when s is not one, as a damaged record read back may not be.
func MetadataEncoded(s string) (md Metadata, ok bool) {
	if s == "" {
		return Metadata{}, true
	}
	rest, marked := strings.CutPrefix(s, metadataMarker)
	if !marked {
		return Metadata{}, false
	}
	fields := 0
	for len(rest) > 0 {
		n, w := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if w <= 0 || n > uint64(len(rest)-w) {
			return Metadata{}, false
		}
		rest = rest[w+int(n):]
		fields++
	}
	return Metadata{enc: s}, fields%2 == 0
}
