package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/tier"
)

// APITier is the user-facing mail API's tier name: it runs apart from the
// parser, so the user can move and delete while the parser is down.
const APITier = "mailbox-api"

func init() { tier.Register(APITier, APIMain) }

// APIMain runs the mail API until ctx ends.
func APIMain(ctx context.Context, args []string) error {
	f := tier.NewFlags(APITier)
	f.Listen()
	pg := f.Postgres()
	f.Require("pg")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return fmt.Errorf("%s: postgres: %w", APITier, err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		return err
	}
	lg := log.New(os.Stderr, "mailbox-api ", log.Lmicroseconds)
	pub, err := f.Serve(ctx, Handler(pool, lg))
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, nil, nil, map[string]string{"http": pub}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// Handler serves POST /messages/{id}/move {"from","to"}, DELETE
// /messages/{id} and GET /messages/{id} (its folders).
func Handler(pool *pgxpool.Pool, lg *log.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /messages/{id}/move", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ From, To string }
		if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil || body.From == "" || body.To == "" {
			http.Error(w, `body: want {"from": folder, "to": folder}`, http.StatusBadRequest)
			return
		}
		err := Move(r.Context(), pool, r.PathValue("id"), body.From, body.To)
		lg.Printf("move %s %s -> %s: %v", r.PathValue("id"), body.From, body.To, err)
		answer(w, err)
	})
	mux.HandleFunc("DELETE /messages/{id}", func(w http.ResponseWriter, r *http.Request) {
		err := Delete(r.Context(), pool, r.PathValue("id"))
		lg.Printf("delete %s: %v", r.PathValue("id"), err)
		answer(w, err)
	})
	mux.HandleFunc("GET /messages/{id}", func(w http.ResponseWriter, r *http.Request) {
		fs, err := Locate(r.Context(), pool, r.PathValue("id"))
		if err != nil {
			answer(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string][]string{"folders": fs})
	})
	return mux
}

func answer(w http.ResponseWriter, err error) {
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, ErrDeleted):
		http.Error(w, err.Error(), http.StatusGone)
	case errors.Is(err, ErrNotThere):
		http.Error(w, err.Error(), http.StatusConflict)
	default:
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}
