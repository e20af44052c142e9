package mrec

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/tier"
)

// TierName is the replicator's tier name for tier.Command.
const TierName = "mrec"

// StatsPath serves the receiver's Stats on the admin endpoint.
const StatsPath = "/mrec"

func init() { tier.Register(TierName, Main) }

// Main runs one Region's replicator: a receiver for the peer's items and a
// sender of its own Region's changes.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(TierName, flag.ContinueOnError)
	region := fs.String("region", "", "this Region's name (R1, R2)")
	pg := fs.String("pg", "", "this Region's Postgres DSN, the stack's schema on its search path")
	schema := fs.String("schema", "", "the stack's schema (payments lives in it)")
	slot := fs.String("slot", "", "logical replication slot (test_decoding) the harness created on this Region's database")
	listen := fs.String("listen", "127.0.0.1:0", "receiver's listen address")
	peer := fs.String("peer", "", "the peer's receiver, through the link that carries the lag")
	tick := fs.Duration("tick", 10*time.Millisecond, "slot poll interval")
	addrFile := fs.String("addr-file", "", "file to publish {receiver, admin} to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *region == "" || *pg == "" || *schema == "" || *slot == "" || *peer == "" {
		return fmt.Errorf("mrec: -region, -pg, -schema, -slot and -peer are required")
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return fmt.Errorf("mrec: -pg: %w", err)
	}
	defer pool.Close()
	lg := log.New(os.Stderr, "mrec-"+*region+" ", log.Lmicroseconds)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	rcv := &Receiver{Pool: pool, Log: lg}
	go rcv.Serve(ctx, ln)
	snd := &Sender{Pool: pool, Region: *region, Schema: *schema, Slot: *slot, Peer: *peer, Tick: *tick, Log: lg}
	admin, err := failpoint.ServeAdmin(ctx, nil, map[string]http.Handler{StatsPath: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		st := rcv.Snapshot()
		_ = json.NewEncoder(w).Encode(struct {
			Stats
			Shipped int64 `json:"shipped"`
		}{st, snd.Shipped.Load()})
	})})
	if err != nil {
		return err
	}
	if err := failpoint.WriteAddrs(*addrFile, map[string]string{"receiver": ln.Addr().String(), "admin": admin}); err != nil {
		return err
	}
	snd.Run(ctx)
	return nil
}
