package stripe

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// The objects of a payment as Stripe shows them: the PaymentIntent (the
// core's Payment and Stripe's own words about it), the Charge of each
// confirmation attempt, the Refunds and their balance transactions. The
// PSP's lock guards them, as it guards the Payment.

// Intent is a PaymentIntent.
type Intent struct {
	core.Payment
	// CaptureMethod is Stripe's word for Payment.Manual: automatic,
	// automatic_async (captured at once too) or manual; SetCapture sets both.
	CaptureMethod string
	rare          *intentRare // nil while none is set
	Versions      []Version   // what search may see, with its lag
	// store keeps versions' JSON (on disk, or in memory without one).
	store *versionStore
	// What intentBook keeps of it while it is in memory: the requests
	// that hold it, whether it changed since it was last written, and when
	// it was last used.
	pins  int32
	dirty bool
	used  uint64
}

// SearchFields are the fields of a rendering that search matches on
// (Query.Matches) and compares versions by (SameVersion): typed, not
// boxed, for they are kept per version. Metadata is the intent's compact
// metadata, shared (Payment.UpdateMetadata replaces it, never changes it),
// zero when empty; LatestCharge is "" when the rendering has none (null).
type SearchFields struct {
	Status, Currency, LatestCharge string
	Amount, Created                int64
	Metadata                       core.Metadata
}

func searchView(snap map[string]any) SearchFields {
	f := SearchFields{}
	f.Status, _ = snap["status"].(string)
	f.Currency, _ = snap["currency"].(string)
	f.LatestCharge, _ = snap["latest_charge"].(string)
	f.Amount, _ = snap["amount"].(int64)
	f.Created, _ = snap["created"].(int64)
	if md, _ := snap["metadata"].(map[string]string); len(md) > 0 {
		f.Metadata = core.MetadataOf(md)
	}
	return f
}

// get is the field named k, as the rendering's map would give it.
func (f SearchFields) get(k string) any {
	switch k {
	case "status":
		return f.Status
	case "currency":
		return f.Currency
	case "amount":
		return f.Amount
	case "created":
		return f.Created
	}
	return nil
}

// Core is the core's part of the intent (core.Record).
func (pi *Intent) Core() *core.Payment { return &pi.Payment }

// SetCapture sets the capture method and the core's capture mode with it.
func (pi *Intent) SetCapture(m string) { pi.CaptureMethod, pi.Manual = m, m == "manual" }

// Status is the intent's status in Stripe's words.
func (pi *Intent) Status() string { return Status(pi.State) }

// JSON is the PaymentIntent object.
func (pi *Intent) JSON() map[string]any {
	var latest, lastErr, canceledAt, reason any
	if pi.AttemptID != "" {
		latest = pi.AttemptID
	}
	if le := pi.lastError(); le != nil {
		lastErr = *le
	}
	if pi.CanceledAt != 0 {
		canceledAt = pi.CanceledAt
	}
	if r := pi.cancelReason(); r != "" {
		reason = r
	}
	return Fill(map[string]any{
		"id": pi.ID, "object": "payment_intent", "amount": pi.Amount, "amount_received": pi.Received,
		"amount_capturable": pi.Capturable, "currency": pi.Currency, "status": pi.Status(), "metadata": NonNil(pi.Metadata.Map()),
		"payment_method": OrNull(pi.Method), "customer": OrNull(pi.customer()), "latest_charge": latest, "last_payment_error": lastErr,
		"description": OrNull(pi.description()), "canceled_at": canceledAt, "cancellation_reason": reason,
		"created": pi.Created, "livemode": false, "capture_method": pi.CaptureMethod, "confirmation_method": "automatic",
		"client_secret": pi.ID + "_secret_" + pi.ID[len(pi.ID)-6:], "payment_method_types": []string{"card"},
		"payment_method_options": map[string]any{"card": map[string]any{"installments": nil, "mandate_options": nil,
			"network": nil, "request_three_d_secure": "automatic"}},
	}, IntentNulls)
}

// Snapshot renders the intent and records it as a version for search;
// call after every change.
func (pi *Intent) Snapshot() map[string]any {
	s := pi.JSON()
	v := versionOf(searchView(s))
	v.at = time.Since(versionEpoch)
	if v.metadata.Len() > 0 {
		// The intent's own, not a copy per version.
		v.metadata = pi.Metadata
	}
	spilled := false
	if pi.store.disk != nil {
		// Encoded now, as it is now: the bytes a search would have sent
		// from memory.
		if b, err := json.Marshal(s); err == nil {
			v.Ref, err = pi.store.disk.Put(b)
			spilled = err == nil
		}
	}
	if !spilled {
		pi.store.keep(versionKey{pi.ID, len(pi.Versions)}, s)
	}
	pi.Versions = append(pi.Versions, v)
	return s
}

// json is version i of intent id as search answers it: the rendering in
// memory, or the JSON read back from disk at ref. A search keeps of a hit
// only these three, not the hit's whole intent, for a broad query over a
// soak's thousands matches most of them.
func (s *versionStore) json(id string, i int, ref spill.Ref) (any, error) {
	if snap, ok := s.inMemory(versionKey{id, i}); ok {
		return snap, nil
	}
	b, err := s.disk.Get(ref)
	if err != nil {
		err = fmt.Errorf("fakepsp: version %d of PaymentIntent %s cannot be read back: %w", i+1, id, err)
		if s.failed != nil {
			s.failed.Keep(err) // ReadError says so, whatever the search answered
		}
		return nil, err
	}
	return json.RawMessage(b), nil
}

// ChargeJSON is the Charge object behind an intent that was charged or
// authorized. An authorization never captured (or the part of it a
// partial capture left) counts as refunded, as Stripe shows it.
func (pi *Intent) ChargeJSON() map[string]any {
	refunded := pi.Released + pi.Refunded
	ch := chargeBase(pi.AttemptID, pi, pi.Method, pi.Amount, pi.Currency, pi.Metadata.Map(), pi.AttemptAt)
	ch["amount_captured"], ch["amount_refunded"], ch["refunded"] = pi.Received, refunded, refunded == pi.Amount
	ch["captured"], ch["paid"], ch["status"] = pi.Received > 0, true, "succeeded"
	ch["balance_transaction"] = OrNull(pi.BalanceTxnID())
	ch["outcome"] = Outcome(nil)
	ch["payment_method_details"] = PaymentMethodDetails(pi.Method, pi.Amount, pi.AttemptID)
	return Fill(ch, ChargeNulls)
}

// BalanceTxnID is the balance transaction of the intent's charge: it
// exists once the charge captured money.
func (pi *Intent) BalanceTxnID() string {
	if pi.Received == 0 || pi.AttemptID == "" {
		return ""
	}
	return "txn_" + strings.TrimPrefix(pi.AttemptID, "ch_")
}

// BalanceTxnJSON is the charge's: the amount captured, booked, less the fee.
func (pi *Intent) BalanceTxnJSON() map[string]any {
	amount, rate := Booked(pi.Received, pi.Currency)
	return TxnJSON(pi.BalanceTxnID(), amount, Fee(amount), rate, "charge", pi.AttemptID, pi.AttemptAt)
}

// FailedCharge is a declined confirmation attempt, a Charge of its own.
// It names its intent by id: the intent may be on disk (intentBook).
type FailedCharge struct {
	ID       string
	Intent   string
	Method   string
	Amount   int64
	Currency string
	Metadata map[string]string
	Created  int64
	Decline  Decline
}

// JSON is the failed Charge object; pi is its intent (fc.Intent), whose
// customer and description it shows as they are now.
func (fc *FailedCharge) JSON(pi *Intent) map[string]any {
	ch := chargeBase(fc.ID, pi, fc.Method, fc.Amount, fc.Currency, fc.Metadata, fc.Created)
	ch["amount_captured"], ch["amount_refunded"], ch["refunded"] = int64(0), int64(0), false
	ch["captured"], ch["paid"], ch["status"] = false, false, "failed"
	ch["balance_transaction"] = nil
	ch["failure_code"], ch["failure_message"] = fc.Decline.Code, fc.Decline.Message
	ch["outcome"] = Outcome(&fc.Decline)
	ch["payment_method_details"] = PaymentMethodDetails(fc.Method, 0, fc.ID)
	return Fill(ch, ChargeNulls)
}

// chargeBase holds the fields every charge has, whatever its outcome.
func chargeBase(id string, pi *Intent, pm string, amount int64, currency string, md map[string]string, created int64) map[string]any {
	return map[string]any{
		"id": id, "object": "charge", "amount": amount, "currency": currency, "payment_intent": pi.ID,
		"payment_method": pm, "metadata": NonNil(md), "created": created, "livemode": false,
		"customer": OrNull(pi.customer()), "description": OrNull(pi.description()), "disputed": false,
		"failure_code": nil, "failure_message": nil, "fraud_details": map[string]any{},
		"billing_details": BillingDetails(), "calculated_statement_descriptor": "IDEMCHECK",
		"receipt_url": "https://pay.stripe.com/receipts/payment/" + strings.TrimPrefix(id, "ch_"),
	}
}

// Refund is one refund of an intent's charge. It names its intent by id
// (the intent may be on disk), with the intent's currency, which cannot
// change once the intent has a charge to refund.
type Refund struct {
	ID       string
	Amount   int64
	Intent   string
	Currency string
	Charge   string
	Metadata map[string]string
	Reason   string
	Created  int64
}

// JSON is the Refund object.
func (r *Refund) JSON() map[string]any {
	var reason any
	if r.Reason != "" {
		reason = r.Reason
	}
	return Fill(map[string]any{
		"id": r.ID, "object": "refund", "amount": r.Amount, "charge": r.Charge, "payment_intent": r.Intent,
		"currency": r.Currency, "status": "succeeded", "metadata": NonNil(r.Metadata), "reason": reason,
		"created": r.Created, "balance_transaction": r.TxnID(),
		"destination_details": map[string]any{"type": "card", "card": map[string]any{"reference": nil,
			"reference_status": "pending", "reference_type": "acquirer_reference_number", "type": "refund"}},
	}, RefundNulls)
}

// TxnID is the refund's balance transaction.
func (r *Refund) TxnID() string { return "txn_" + strings.TrimPrefix(r.ID, "re_") }

// TxnJSON is the refund's balance transaction: the amount returned, booked
// at the charge's rate.
func (r *Refund) TxnJSON() map[string]any {
	amount, rate := Booked(r.Amount, r.Currency)
	return TxnJSON(r.TxnID(), -amount, 0, rate, "refund", r.ID, r.Created)
}

// OrNull is s, or null when empty.
func OrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// NonNil is m, or an empty map: Stripe sends metadata as {} when it has none.
func NonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
