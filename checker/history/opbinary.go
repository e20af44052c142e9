package history

import (
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A compact binary form of an Op, for a reader that parsed a file once and
// must read its ops again (the streamed check's pieces, checker/stream.go):
// decoding it costs a fraction of parsing the JSON line again. It is
// private to one run, never a file format: no version, no promise.
//
// A record is a uvarint flags word (which pointers are set), then the
// strings (uvarint length, bytes) and integers (varint) in a fixed order,
// the pointed-to ones only when set.

const (
	binReturn = 1 << iota
	binOutput
	binAmount
	binCounter
	binPhoneTime
	binOffset
	binMetadata
	binShown
	binAlert
	binBalance
	binTotal
	binTag
	binFolders
	binStored
	binAlertTrue
	binStoredTrue
)

// AppendOpBinary appends op's record to b.
func AppendOpBinary(b []byte, op *Op) []byte {
	in, out := &op.Input, op.Output
	var f uint64
	set := func(bit uint64, ok bool) {
		if ok {
			f |= bit
		}
	}
	set(binReturn, op.Return != nil)
	set(binOutput, out != nil)
	set(binAmount, in.Amount != nil)
	set(binCounter, in.Counter != nil)
	set(binPhoneTime, in.PhoneTime != nil)
	set(binOffset, in.Offset != nil)
	set(binMetadata, in.Metadata != nil)
	if out != nil {
		set(binShown, out.Shown != nil)
		set(binAlert, out.Alert != nil)
		set(binAlertTrue, out.Alert != nil && *out.Alert)
		set(binBalance, out.Balance != nil)
		set(binTotal, out.Total != nil)
		set(binTag, out.Tag != nil)
		set(binFolders, out.Folders != nil)
		set(binStored, out.Stored != nil)
		set(binStoredTrue, out.Stored != nil && *out.Stored)
	}
	b = binary.AppendUvarint(b, f)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(p *int64) {
		if p != nil {
			b = binary.AppendVarint(b, *p)
		}
	}
	for _, s := range [...]string{op.Process, op.Op, op.Intent, op.PaymentID, op.Region,
		in.Fingerprint, in.Currency, in.PSPKey, in.ChargeID, in.Merchant, in.EventID, in.ReplaceID, in.Recipient, in.Request, in.Day,
		in.Device, in.Item, in.Value, in.Message, in.From, in.To} {
		str(s)
	}
	b = binary.AppendVarint(b, op.Call)
	num(op.Return)
	num(in.Amount)
	num(in.Counter)
	num(in.PhoneTime)
	num(in.Offset)
	if in.Metadata != nil {
		b = binary.AppendUvarint(b, uint64(len(in.Metadata)))
		for k, v := range in.Metadata {
			str(k)
			str(v)
		}
	}
	if out == nil {
		return b
	}
	for _, s := range [...]string{out.Outcome, out.PaymentID, out.ChargeID, out.RefundID, out.Value} {
		str(s)
	}
	if out.Shown != nil {
		b = binary.AppendVarint(b, int64(*out.Shown))
	}
	num(out.Balance)
	num(out.Total)
	num(out.Tag)
	if out.Folders != nil {
		b = binary.AppendUvarint(b, uint64(len(*out.Folders)))
		for _, s := range *out.Folders {
			str(s)
		}
	}
	return b
}

var errBinary = errors.New("corrupt op record")

// binDecoder reads records out of one string, which the decoded ops' strings
// share (no allocation per string).
type binDecoder struct {
	s   string
	bad bool
	sl  slab
}

func (d *binDecoder) uvarint() uint64 {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(d.s) == 0 {
			d.bad = true
			return 0
		}
		c := d.s[0]
		d.s = d.s[1:]
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	d.bad = true
	return 0
}

func (d *binDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *binDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.bad = true
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *binDecoder) num(f, bit uint64) *int64 {
	if f&bit == 0 {
		return nil
	}
	return d.sl.int64(d.varint())
}

// op decodes one record into op.
func (d *binDecoder) op(op *Op) {
	f := d.uvarint()
	in := &op.Input
	for _, p := range [...]*string{&op.Process, &op.Op, &op.Intent, &op.PaymentID, &op.Region,
		&in.Fingerprint, &in.Currency, &in.PSPKey, &in.ChargeID, &in.Merchant, &in.EventID, &in.ReplaceID, &in.Recipient, &in.Request, &in.Day,
		&in.Device, &in.Item, &in.Value, &in.Message, &in.From, &in.To} {
		*p = d.str()
	}
	op.Call = d.varint()
	op.Return = d.num(f, binReturn)
	in.Amount = d.num(f, binAmount)
	in.Counter = d.num(f, binCounter)
	in.PhoneTime = d.num(f, binPhoneTime)
	in.Offset = d.num(f, binOffset)
	if f&binMetadata != 0 {
		n := d.uvarint()
		in.Metadata = make(map[string]string, min(n, 64))
		for ; n > 0 && !d.bad; n-- {
			k := d.str()
			in.Metadata[k] = d.str()
		}
	}
	if f&binOutput == 0 {
		return
	}
	var out Output
	for _, p := range [...]*string{&out.Outcome, &out.PaymentID, &out.ChargeID, &out.RefundID, &out.Value} {
		*p = d.str()
	}
	if f&binShown != 0 {
		out.Shown = d.sl.int(int(d.varint()))
	}
	if f&binAlert != 0 {
		out.Alert = d.sl.bool(f&binAlertTrue != 0)
	}
	out.Balance = d.num(f, binBalance)
	out.Total = d.num(f, binTotal)
	out.Tag = d.num(f, binTag)
	if f&binFolders != 0 {
		n := d.uvarint()
		fs := make([]string, 0, min(n, 64))
		for ; n > 0 && !d.bad; n-- {
			fs = append(fs, d.str())
		}
		out.Folders = &fs
	}
	if f&binStored != 0 {
		out.Stored = d.sl.bool(f&binStoredTrue != 0)
	}
	op.Output = d.sl.output(&out)
}

// DecodeOpsBinary decodes data, a run of records each preceded by its
// length (uvarint), as AppendOpBinary wrote them, on all cores. The ops'
// strings point into data, which the caller must never change again: a
// copy would hold a piece twice.
func DecodeOpsBinary(data []byte) (History, error) {
	if len(data) == 0 {
		return nil, nil
	}
	all := unsafe.String(&data[0], len(data))
	var at [][2]int // each record's bytes, after its length
	for d := (binDecoder{s: all}); len(d.s) > 0; {
		n := d.uvarint()
		if d.bad || n == 0 || n > uint64(len(d.s)) {
			return nil, errBinary
		}
		from := len(all) - len(d.s)
		at = append(at, [2]int{from, from + int(n)})
		d.s = d.s[n:]
	}
	h := make(History, len(at))
	var bad atomic.Bool
	var wg sync.WaitGroup
	chunk := max((len(at)+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0), 1)
	for lo := 0; lo < len(at); lo += chunk {
		hi := min(lo+chunk, len(at))
		wg.Go(func() {
			d := &binDecoder{}
			for i := lo; i < hi; i++ {
				d.s = all[at[i][0]:at[i][1]]
				d.op(&h[i])
				if d.bad || len(d.s) != 0 {
					bad.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() {
		return nil, errBinary
	}
	return h, nil
}
