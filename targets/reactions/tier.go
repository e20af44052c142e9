package reactions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the service's tier name for tier.Command.
const TierName = "reactions"

// Path is where devices POST their writes; StatePath?item=X reads a state.
const (
	Path      = "/reactions"
	StatePath = "/reactions/state"
)

func init() { tier.Register(TierName, Main) }

// Main runs the reactions service until ctx ends.
func Main(ctx context.Context, args []string) error {
	f := tier.NewFlags(TierName)
	f.Listen()
	pg := f.Postgres()
	ms := f.Mutants()
	f.Require("pg")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return fmt.Errorf("reactions: postgres: %w", err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		return err
	}
	lg := log.New(os.Stderr, "reactions ", log.Lmicroseconds)
	pub, err := f.Serve(ctx, Handler(pool, *ms, lg))
	if err != nil {
		return err
	}
	if _, err := f.Publish(ctx, nil, nil, map[string]string{"http": pub}); err != nil {
		return err
	}
	lg.Printf("listening on %s, mutants %q", pub, ms.String())
	<-ctx.Done()
	return nil
}

// Handler serves the device API: POST Path with a Write answers 200 and the
// item's state whether or not the write applied (a stale resend is a success
// disguised as a repeat: the device needs only the acknowledgement).
func Handler(pool *pgxpool.Pool, ms mutant.Set, lg *log.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+Path, func(w http.ResponseWriter, r *http.Request) {
		var wr Write
		dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
		if err := dec.Decode(&wr); err != nil {
			http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := wr.Check(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := Apply(r.Context(), pool, wr, ms)
		if err != nil {
			lg.Printf("%v", err)
			http.Error(w, "apply failed", http.StatusInternalServerError)
			return
		}
		lg.Printf("%s %s counter %d phone_time %d on %s: applied %v, state %s", wr.Device, wr.Action, wr.Counter, wr.PhoneTime, wr.Item, res.Applied, res.State)
		tier.WriteJSON(w, res)
	})
	mux.HandleFunc("GET "+StatePath, func(w http.ResponseWriter, r *http.Request) {
		item := r.URL.Query().Get("item")
		if item == "" {
			http.Error(w, "item: missing", http.StatusBadRequest)
			return
		}
		s, err := State(r.Context(), pool, item)
		if err != nil {
			http.Error(w, "read failed", http.StatusInternalServerError)
			return
		}
		tier.WriteJSON(w, map[string]string{"state": s})
	})
	return mux
}
