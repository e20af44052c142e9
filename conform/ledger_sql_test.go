package conform

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/stack/services"
)

// The SQL form of the ledger read, against a real Postgres: one intent's
// rows by $1, column names from the config.
func TestLedgerSQLReadsOneOrdersRows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := services.Start(ctx, services.Options{Postgres: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Stop(context.Background()) }()
	dsn := st.Postgres.Endpoint()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE charges (ord text, cents bigint);
		INSERT INTO charges VALUES ('ord-1', 1001), ('ord-1', 1001), ('ord-2', 1002)`)
	if err != nil {
		t.Fatal(err)
	}
	r := ledgerReader{&config.Ledger{DSN: dsn, Query: "SELECT ord, cents FROM charges WHERE ord = $1", OrderIDField: "ord", AmountField: "cents"}}
	rows, err := r.Rows(ctx, "ord-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].OrderID != "ord-1" || rows[0].Amount != 1001 {
		t.Fatalf("rows %+v, want two of ord-1 at 1001", rows)
	}
	if rows, err := r.Rows(ctx, "ord-3"); err != nil || len(rows) != 0 {
		t.Fatalf("ord-3: %v %v, want none", rows, err)
	}
}
