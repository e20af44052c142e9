package connector

import (
	"testing"

	"github.com/jackc/pglogrepl"
)

func text(s string) *pglogrepl.TupleDataColumn {
	return &pglogrepl.TupleDataColumn{DataType: pglogrepl.TupleDataTypeText, Length: uint32(len(s)), Data: []byte(s)}
}

func TestChangeFromRowImage(t *testing.T) {
	c := &Connector{relations: map[uint32]*pglogrepl.RelationMessage{7: {RelationID: 7, RelationName: "payments",
		Columns: []*pglogrepl.RelationMessageColumn{{Name: "payment_id"}, {Name: "merchant"}, {Name: "amount"}, {Name: "state"}, {Name: "updated_at"}}}}}
	for _, tc := range []struct{ ts, day string }{
		{"2026-12-01 23:59:59.123456+00", "2026-12-01"},
		{"2026-12-01 08:00:00+00", "2026-12-01"},
		{"2026-12-02 01:30:00+05:30", "2026-12-01"}, // another session zone: still the UTC date
	} {
		c.cur = &txn{}
		row := &pglogrepl.TupleData{Columns: []*pglogrepl.TupleDataColumn{text("pay_7"), text("m1"), text("3000"), text("SUCCEEDED"), text(tc.ts)}}
		if err := c.change(7, row); err != nil {
			t.Fatalf("%s: %v", tc.ts, err)
		}
		e := c.cur.changes[0]
		if e.EventID != "pay_7:SUCCEEDED" || e.Merchant != "m1" || e.Amount != 3000 || e.Day != tc.day || e.Kind != KindChange {
			t.Fatalf("%s: %+v", tc.ts, e)
		}
	}
	c.cur = &txn{}
	bad := &pglogrepl.TupleData{Columns: []*pglogrepl.TupleDataColumn{text("pay_7"), text("m1"), text("x"), text("SUCCEEDED"), text("2026-12-01 08:00:00+00")}}
	if err := c.change(7, bad); err == nil {
		t.Fatal("a non-numeric amount was accepted")
	}
	if err := c.change(9, bad); err == nil {
		t.Fatal("an unknown relation was accepted")
	}
}

func TestDecodeRefusesUnknownKinds(t *testing.T) {
	if _, err := Decode([]byte(`{"kind":"change","event_id":"pay_7:SUCCEEDED","event_time":1}`)); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{`{"kind":"other"}`, `not json`} {
		if _, err := Decode([]byte(b)); err == nil {
			t.Errorf("%s accepted", b)
		}
	}
}
