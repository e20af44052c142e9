package mrec

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	f := tier.NewFlags(TierName)
	listen := f.Listen()
	pg := f.Postgres()
	region := f.String("region", "", "this Region's name (R1, R2)")
	schema := f.String("schema", "", "the stack's schema (payments lives in it)")
	slot := f.String("slot", "", "logical replication slot (test_decoding) the harness created on this Region's database")
	peer := f.String("peer", "", "the peer's receiver, through the link that carries the lag")
	tick := f.Duration("tick", 10*time.Millisecond, "slot poll interval")
	f.Require("region", "pg", "schema", "slot", "peer")
	if err := f.Parse(args); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *pg)
	if err != nil {
		return f.Bad(fmt.Errorf("-pg: %w", err))
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
	stats := tier.JSON(func() any {
		return struct {
			Stats
			Shipped int64 `json:"shipped"`
		}{rcv.Snapshot(), snd.Shipped.Load()}
	})
	if _, err := f.Publish(ctx, nil, map[string]http.Handler{StatsPath: stats}, map[string]string{"receiver": ln.Addr().String()}); err != nil {
		return err
	}
	snd.Run(ctx)
	return nil
}
