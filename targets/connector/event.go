// Package connector is the ledger's change-data-capture tier: it reads the
// payments table's changes from Postgres logical replication (pgoutput, with
// pglogrepl) and publishes each one to a Kafka topic with its commit time as
// event time, about Lag after the commit, plus a heartbeat every story second.
// Its position is the replication slot's confirmed LSN, advanced only after
// Kafka acknowledged everything before it, so a connector that dies before it
// confirms re-publishes those changes on restart: the duplicate of F3 and F4.
package connector

import (
	"encoding/json"
	"fmt"
)

// Kinds of topic records.
const (
	KindChange    = "change"
	KindHeartbeat = "heartbeat"
)

// Event is one topic record. A change's EventID is derived from the row
// (payment id and the state it moved to), so every copy of one change, however
// many times the connector re-publishes it, carries the same id.
type Event struct {
	Kind      string `json:"kind"`
	EventID   string `json:"event_id,omitempty"`
	PaymentID string `json:"payment_id,omitempty"`
	Merchant  string `json:"merchant,omitempty"`
	State     string `json:"state,omitempty"`
	Amount    int64  `json:"amount,omitempty"`
	// Day is the UTC date of the row's updated_at: the ledger's own day of
	// the move, so a reconciliation against the ledger agrees to the row.
	Day string `json:"day,omitempty"`
	// EventTime is Unix nanoseconds: the commit time for a change; for a
	// heartbeat, the time up to which every commit has been published.
	EventTime int64  `json:"event_time"`
	LSN       string `json:"lsn,omitempty"`
}

// ChangeID is the event id of a payment's move to state.
func ChangeID(paymentID, state string) string { return paymentID + ":" + state }

// Decode reads one topic record's value.
func Decode(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("connector: record %q: %w", b, err)
	}
	if e.Kind != KindChange && e.Kind != KindHeartbeat {
		return e, fmt.Errorf("connector: record %q: unknown kind %q", b, e.Kind)
	}
	return e, nil
}
