package connector

import (
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pglogrepl"
)

// decode folds one pgoutput message into the transaction being received;
// a commit queues it for publication at commit time + Lag.
func (c *Connector) decode(data []byte) error {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return fmt.Errorf("connector: pgoutput: %w", err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		c.relations[m.RelationID] = m
	case *pglogrepl.BeginMessage:
		c.cur = &txn{}
	case *pglogrepl.InsertMessage:
		return c.change(m.RelationID, m.Tuple)
	case *pglogrepl.UpdateMessage:
		return c.change(m.RelationID, m.NewTuple)
	case *pglogrepl.CommitMessage:
		t := c.cur
		c.cur = nil
		if t == nil {
			return nil
		}
		t.end, t.commit = m.TransactionEndLSN, m.CommitTime
		for i := range t.changes {
			t.changes[i].EventTime = m.CommitTime.UnixNano()
			t.changes[i].LSN = m.CommitLSN.String()
		}
		if len(t.changes) == 0 {
			if len(c.queue) == 0 {
				c.setSent(t.end)
				c.ack()
			}
			return nil
		}
		c.pending.Add(int64(len(t.changes)))
		c.queue = append(c.queue, t)
	}
	return nil
}

// change turns a payments row image into a change event.
func (c *Connector) change(rel uint32, tuple *pglogrepl.TupleData) error {
	r, ok := c.relations[rel]
	if !ok {
		return fmt.Errorf("connector: change on unknown relation %d", rel)
	}
	if c.cur == nil || tuple == nil {
		return nil
	}
	row := map[string]string{}
	for i, col := range tuple.Columns {
		if i < len(r.Columns) && col.DataType == pglogrepl.TupleDataTypeText {
			row[r.Columns[i].Name] = string(col.Data)
		}
	}
	e := Event{Kind: KindChange, PaymentID: row["payment_id"], Merchant: row["merchant"], State: row["state"]}
	if e.PaymentID == "" || e.State == "" {
		return fmt.Errorf("connector: %s row without payment_id or state: %v", r.RelationName, row)
	}
	e.EventID = ChangeID(e.PaymentID, e.State)
	if a := row["amount"]; a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return fmt.Errorf("connector: payment %s amount %q: %w", e.PaymentID, a, err)
		}
		e.Amount = n
	}
	ts, err := parseTimestamptz(row["updated_at"])
	if err != nil {
		return fmt.Errorf("connector: payment %s updated_at: %w", e.PaymentID, err)
	}
	e.Day = ts.UTC().Format(time.DateOnly)
	c.cur.changes = append(c.cur.changes, e)
	return nil
}

// parseTimestamptz reads Postgres' text form of a timestamptz, whose zone is
// "+00" on whole hours and "+05:30" (or "+05:30:15") otherwise.
func parseTimestamptz(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{"2006-01-02 15:04:05.999999-07", "2006-01-02 15:04:05.999999-07:00", "2006-01-02 15:04:05.999999-07:00:00"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamptz %q: %w", s, err)
}
