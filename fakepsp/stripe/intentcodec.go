package stripe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// An evicted PaymentIntent's record on disk (intentBook): a compact binary
// encoding, not gob or JSON, for a search reads back every intent of the
// account and must stay fast. Strings and numbers are varint-prefixed;
// the rare last_payment_error is its JSON.

const intentCodecVersion = 1

var errBadRecord = errors.New("the record is not a PaymentIntent's")

func encodeIntent(pi *Intent) ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, intentCodecVersion)
	b = appendStr(b, pi.ID)
	b = append(b, byte(pi.State))
	b = appendBool(b, pi.Manual)
	b = appendStr(b, pi.Method)
	b = appendMetadata(b, pi.Metadata)
	for _, n := range []int64{pi.Created, pi.AttemptAt, pi.CanceledAt, pi.Amount, pi.Received, pi.Capturable, pi.Released, pi.Refunded} {
		b = binary.AppendVarint(b, n)
	}
	b = appendStr(b, pi.AttemptID)
	b = appendStr(b, pi.Currency)
	b = appendStr(b, pi.ChargeKey)
	b = appendStr(b, pi.CaptureMethod)
	b = appendBool(b, pi.rare != nil)
	if pi.rare != nil {
		b = appendStr(b, pi.rare.description)
		b = appendStr(b, pi.rare.customer)
		b = appendStr(b, pi.rare.cancelReason)
		var le []byte
		if pi.rare.lastError != nil {
			var err error
			if le, err = json.Marshal(pi.rare.lastError); err != nil {
				return nil, err
			}
		}
		b = appendStr(b, string(le))
	}
	b = binary.AppendUvarint(b, uint64(len(pi.Versions)))
	for _, v := range pi.Versions {
		b = spill.AppendRef(b, v.Ref)
		b = binary.AppendVarint(b, int64(v.at))
		b = appendStr(b, v.currency)
		b = appendStr(b, v.latestCharge)
		b = binary.AppendVarint(b, v.amount)
		b = appendMetadata(b, v.metadata)
		b = binary.AppendUvarint(b, uint64(v.status))
	}
	return b, nil
}

func decodeIntent(b []byte, store *versionStore) (*Intent, error) {
	d := decoder{b: b}
	if d.byte() != intentCodecVersion {
		return nil, errBadRecord
	}
	pi := &Intent{store: store}
	pi.ID = d.str()
	pi.State = core.State(d.byte())
	pi.Manual = d.bool()
	pi.Method = d.str()
	pi.Metadata = d.metadata(core.Metadata{})
	for _, n := range []*int64{&pi.Created, &pi.AttemptAt, &pi.CanceledAt, &pi.Amount, &pi.Received, &pi.Capturable, &pi.Released, &pi.Refunded} {
		*n = d.varint()
	}
	pi.AttemptID = d.str()
	pi.Currency = d.str()
	pi.ChargeKey = d.str()
	pi.CaptureMethod = d.str()
	if d.bool() {
		pi.rare = &intentRare{description: d.str(), customer: d.str(), cancelReason: d.str()}
		if le := d.str(); le != "" {
			pi.rare.lastError = &Error{}
			dec := json.NewDecoder(bytes.NewReader([]byte(le)))
			dec.UseNumber() // its numbers render as they were
			if err := dec.Decode(pi.rare.lastError); err != nil {
				return nil, err
			}
		}
	}
	n := d.uvarint()
	if n > uint64(len(b)) {
		return nil, errBadRecord
	}
	pi.Versions = make([]Version, n)
	for i := range pi.Versions {
		v := &pi.Versions[i]
		v.Ref = d.ref()
		v.at = time.Duration(d.varint())
		v.currency = d.str()
		v.latestCharge = d.str()
		v.amount = d.varint()
		v.metadata = d.metadata(pi.Metadata)
		v.status = word(d.uvarint())
	}
	if d.bad || len(d.b) != 0 {
		return nil, errBadRecord
	}
	return pi, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, x bool) []byte {
	if x {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendMetadata(b []byte, md core.Metadata) []byte { return appendStr(b, md.Encoded()) }

// decoder reads what the append functions wrote; a short or malformed
// record sets bad and reads zeros from then on.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	x := d.b[0]
	d.b = d.b[1:]
	return x
}

func (d *decoder) bool() bool { return d.byte() == 1 }

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) ref() spill.Ref {
	r, n := spill.ReadRef(d.b)
	if n == 0 {
		d.bad, d.b = true, nil
		return spill.Ref{}
	}
	d.b = d.b[n:]
	return r
}

// metadata reads a Metadata; one spelled as same is same, shared, as a
// version shares its intent's.
func (d *decoder) metadata(same core.Metadata) core.Metadata {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return core.Metadata{}
	}
	raw := d.b[:n]
	d.b = d.b[n:]
	if string(raw) == same.Encoded() {
		return same
	}
	md, ok := core.MetadataEncoded(string(raw))
	if !ok {
		d.bad, d.b = true, nil
	}
	return md
}
