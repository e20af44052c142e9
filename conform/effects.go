package conform

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// pspEffects reads fakepsp's ground truth.
type pspEffects struct{ psp *fakepsp.PSP }

func (p pspEffects) Charges(context.Context) ([]checker.Op, error) { return p.psp.Charges(), nil }
func (p pspEffects) Count(context.Context) (int64, error)          { return int64(len(p.psp.Charges())), nil }

// httpCounter reads a JSON field of a GET endpoint the user exposes.
type httpCounter struct{ c *config.HTTPCounter }

func (h httpCounter) Charges(context.Context) ([]checker.Op, error) { return nil, nil }

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
	v, ok := driver.JSONPath(b, h.c.Field)
	if !ok {
		return 0, fmt.Errorf("effects counter %s: no field %q in %q", h.c.URL, h.c.Field, b)
	}
	return strconv.ParseInt(v, 10, 64)
}

// sqlCounter runs the user's counting query on Postgres.
type sqlCounter struct{ c *config.SQLCounter }

func (s sqlCounter) Charges(context.Context) ([]checker.Op, error) { return nil, nil }

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
