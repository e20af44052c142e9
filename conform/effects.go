package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/internal/jsonlist"
)

// pspEffects reads fakepsp's ground truth.
type pspEffects struct{ psp scenario.PSP }

func (p pspEffects) Charges(context.Context) ([]history.Op, error) { return p.psp.Charges(), nil }

func (p pspEffects) Count(ctx context.Context) (int64, error) {
	if n, ok := p.ChargeCount(ctx); ok {
		return int64(n), nil
	}
	return int64(len(p.psp.Charges())), nil
}

// ChargeCount counts the charges without copying them when the PSP can
// (the fakepsp idemcheck started; one reached by URL cannot).
func (p pspEffects) ChargeCount(context.Context) (int, bool) {
	if c, ok := p.psp.(interface{ ChargeCount() int }); ok {
		return c.ChargeCount(), true
	}
	return 0, false
}

// ChargesFrom reads only the charges logged from pos on when the PSP can
// (scenario.ChargeTail); ok is false when it cannot.
func (p pspEffects) ChargesFrom(_ context.Context, pos int) ([]history.Op, int, bool, error) {
	c, ok := p.psp.(interface {
		ChargesFrom(pos int) ([]history.Op, int, error)
	})
	if !ok {
		return nil, 0, false, nil
	}
	ops, next, err := c.ChargesFrom(pos)
	return ops, next, true, err
}

// httpCounter reads a JSON field of a GET endpoint the user exposes.
type httpCounter struct{ c *config.HTTPCounter }

func (h httpCounter) Charges(context.Context) ([]history.Op, error) { return nil, nil }

func (h httpCounter) Count(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", h.c.URL, nil)
	if err != nil {
		return 0, err
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if h.c.Field == "" {
		return countArray(b, h.c.URL)
	}
	v, ok := driver.JSONPath(b, h.c.Field)
	if !ok {
		return 0, fmt.Errorf("effects counter %s: no field %q in %q", h.c.URL, h.c.Field, b)
	}
	if strings.HasPrefix(strings.TrimSpace(v), "[") {
		return countArray([]byte(v), h.c.URL)
	}
	return strconv.ParseInt(v, 10, 64)
}

// countArray counts the elements of a JSON array (a list of charges).
func countArray(b []byte, from string) (int64, error) {
	var xs []json.RawMessage
	if err := json.Unmarshal(b, &xs); err != nil {
		return 0, fmt.Errorf("effects counter %s: want a JSON array or a field naming one: %v", from, err)
	}
	return int64(len(xs)), nil
}

// ledgerReader reads the service's own charges of one order (config ledger).
type ledgerReader struct{ l *config.Ledger }

func (r ledgerReader) Rows(ctx context.Context, orderID string) ([]scenario.LedgerRow, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r.l.URL != "" {
		return r.httpRows(ctx, orderID)
	}
	conn, err := pgx.Connect(ctx, r.l.DSN)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, r.l.Query, orderID)
	if err != nil {
		return nil, fmt.Errorf("ledger.query: %w", err)
	}
	maps, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		return nil, fmt.Errorf("ledger.query: %w", err)
	}
	var out []scenario.LedgerRow
	for _, m := range maps {
		row := scenario.LedgerRow{OrderID: fmt.Sprint(m[r.l.OrderIDField])}
		if _, has := m[r.l.OrderIDField]; !has {
			row.OrderID = orderID
		}
		row.Amount, _ = strconv.ParseInt(fmt.Sprint(m[r.l.AmountField]), 10, 64)
		if row.OrderID == orderID {
			out = append(out, row)
		}
	}
	return out, nil
}

func (r ledgerReader) httpRows(ctx context.Context, orderID string) ([]scenario.LedgerRow, error) {
	u := driver.Fill(r.l.URL, map[string]string{"order_id": url.QueryEscape(orderID)})
	items, err := getList(ctx, "ledger", u, r.l.List)
	if err != nil {
		return nil, err
	}
	var out []scenario.LedgerRow
	for _, it := range items {
		row := scenario.LedgerRow{OrderID: orderID}
		if v, ok := driver.JSONPath(it, r.l.OrderIDField); ok {
			row.OrderID = v
		}
		if v, ok := driver.JSONPath(it, r.l.AmountField); ok {
			row.Amount, _ = strconv.ParseInt(v, 10, 64)
		}
		// A service may answer every row whatever the filter: count ours.
		if row.OrderID == orderID {
			out = append(out, row)
		}
	}
	return out, nil
}

// sqlCounter runs the user's counting query on Postgres.
type sqlCounter struct{ c *config.SQLCounter }

func (s sqlCounter) Charges(context.Context) ([]history.Op, error) { return nil, nil }

func (s sqlCounter) Count(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.c.DSN)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, s.c.Query).Scan(&n)
	return n, err
}

// getList GETs u and returns the JSON list at the dotted path list ("" =
// the answer is the list); field names the config section (ledger,
// ledger.credits) whose url and list an error names, with the members the
// answer has, so a user sees which list to set.
func getList(ctx context.Context, field, u, list string) ([]json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s.url %s answered %d", field, u, resp.StatusCode)
	}
	whole := b
	if list != "" {
		v, ok := driver.JSONPath(b, list)
		if !ok {
			return nil, fmt.Errorf("%s.list: no member %q in the answer of %s (its members: %s)%s", field, list, u, jsonlist.Members(whole), listHint(whole))
		}
		b = []byte(v)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		at := "the answer"
		if list != "" {
			at = fmt.Sprintf("member %q", list)
		}
		return nil, fmt.Errorf("%s.list: %s of %s is not a JSON list (the answer's members: %s)%s", field, at, u, jsonlist.Members(whole), listHint(whole))
	}
	return items, nil
}

// listHint names the list an unedited config could point at, when the
// answer has one.
func listHint(b []byte) string {
	if p, err := jsonlist.Find(b); err == nil && p != "" {
		return fmt.Sprintf(": set list: %s", p)
	}
	return ""
}
