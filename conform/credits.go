package conform

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// creditReader reads the service's own credits of one payment (config
// ledger.credits): the signed amount of each row.
type creditReader struct{ c *config.Credits }

var argRE = regexp.MustCompile(`\$([123])\b`)

func (r creditReader) Credits(ctx context.Context, p scenario.PaymentRef) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r.c.URL != "" {
		return r.httpRows(ctx, p)
	}
	conn, err := pgx.Connect(ctx, r.c.DSN)
	if err != nil {
		return nil, fmt.Errorf("ledger.credits.dsn: %w", err)
	}
	defer conn.Close(ctx)
	q, args := bindRef(r.c.Query, p)
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger.credits.query: %w", err)
	}
	maps, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		return nil, fmt.Errorf("ledger.credits.query: %w", err)
	}
	var out []int64
	for _, m := range maps {
		v, has := m[r.c.AmountField]
		if !has {
			return nil, fmt.Errorf("ledger.credits.query: no column %q in its rows", r.c.AmountField)
		}
		n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ledger.credits.query: column %q is %v, not an integer amount", r.c.AmountField, v)
		}
		out = append(out, n)
	}
	return out, nil
}

func (r creditReader) httpRows(ctx context.Context, p scenario.PaymentRef) ([]int64, error) {
	u := driver.Fill(r.c.URL, map[string]string{"order_id": url.QueryEscape(p.OrderID),
		"payment_id": url.QueryEscape(p.PaymentID), "psp_payment_id": url.QueryEscape(p.PSPPaymentID)})
	items, err := getList(ctx, "ledger.credits", u, r.c.List)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, it := range items {
		v, ok := driver.JSONPath(it, r.c.AmountField)
		if !ok {
			return nil, fmt.Errorf("ledger.credits.url %s: a row has no field %q: %.200s", u, r.c.AmountField, it)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ledger.credits.url %s: field %q is %s, not an integer amount", u, r.c.AmountField, v)
		}
		out = append(out, n)
	}
	return out, nil
}

// bindRef renumbers the $1-$3 a query names to the ones it uses, in order,
// and returns their values: Postgres refuses a parameter it cannot type,
// so a query that names only $3 must not be sent $1 and $2.
func bindRef(q string, p scenario.PaymentRef) (string, []any) {
	all := []any{p.OrderID, p.PaymentID, p.PSPPaymentID}
	pos := map[string]int{}
	var args []any
	for _, m := range argRE.FindAllStringSubmatch(q, -1) {
		if _, ok := pos[m[1]]; !ok {
			args = append(args, all[m[1][0]-'1'])
			pos[m[1]] = len(args)
		}
	}
	return argRE.ReplaceAllStringFunc(q, func(m string) string { return fmt.Sprintf("$%d", pos[m[1:]]) }), args
}
