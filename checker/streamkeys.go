package checker

import (
	"hash/maphash"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
)

// The names an op shares with others that any rule of the check joins it
// by: two ops that share none (directly or through others) are judged apart
// by every rule, so a file can be checked in pieces that share no name
// (stream.go). A name is kept as a 64-bit hash: two names that collide only
// put two pieces' ops in one piece, which changes nothing found. A name
// too many is as harmless; a name too few would split what a rule joins, so
// opKeys errs on the side of more.
const (
	keyIntent byte = iota
	keyPayment
	keyCharge
	keyEvent
	keyMerchant
	keyRecipient
	keyItem
	keyMessage
)

// maxKeys bounds the names of one op (opKeys adds at most this many).
const maxKeys = 12

type opKeys struct {
	k [maxKeys]uint64
	n int
}

var keySeed = maphash.MakeSeed()

func (ks *opKeys) add(kind byte, name string) {
	// The checker joins "payment:" + id as an intent, and "payment:intent:"
	// + intent as a payment (unlinkedPrefix), so such names are one name.
	switch {
	case kind == keyIntent && strings.HasPrefix(name, unlinkedPrefix):
		ks.add(keyPayment, name[len(unlinkedPrefix):])
		return
	case kind == keyPayment && strings.HasPrefix(name, unlinkedPrefix+"intent:"):
		ks.add(keyIntent, name[len(unlinkedPrefix+"intent:"):])
		return
	}
	var h maphash.Hash
	h.SetSeed(keySeed)
	h.WriteByte(kind)
	h.WriteString(name)
	ks.k[ks.n] = h.Sum64()
	ks.n++
}

// keysOf lists the names op is joined by.
func keysOf(op *history.Op) opKeys {
	var ks opKeys
	some := func(kind byte, name string) {
		if name != "" {
			ks.add(kind, name)
		}
	}
	// link: an op's intent and payment, from its fields, its metadata and
	// its answer; the payment a notify replaces is matched as a payment.
	some(keyIntent, op.Intent)
	some(keyIntent, op.Input.Metadata["intent"])
	some(keyPayment, op.PaymentID)
	some(keyPayment, op.Input.Metadata["payment_id"])
	some(keyPayment, op.Input.ReplaceID)
	if op.Output != nil {
		some(keyPayment, op.Output.PaymentID)
		some(keyCharge, op.Output.ChargeID)
	}
	switch op.Op {
	case history.OpRefund:
		ks.add(keyCharge, op.Input.ChargeID) // "" too: refunds of no charge are grouped
	case history.OpCredit:
		some(keyEvent, op.Input.EventID)
		ks.add(keyMerchant, op.Input.Merchant)
	case history.OpBalance, history.OpSink:
		ks.add(keyMerchant, op.Input.Merchant)
	case history.OpNotify:
		ks.add(keyRecipient, op.Input.Recipient)
	case history.OpWrite, history.OpState:
		ks.add(keyItem, op.Input.Item)
	case history.OpMove, history.OpDelete, history.OpLocate, history.OpStore:
		ks.add(keyMessage, op.Input.Message)
	}
	return ks
}
