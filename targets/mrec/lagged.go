package mrec

import (
	"context"
	"log"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/faults"
)

// Lagged runs one sender (R1) and one receiver (R2) in this process, the
// sender's items crossing a Toxiproxy link that delays them by lag, as G1
// runs them; r1DSN is R1's DSN (the slot is dropped through it). stop ends
// both and drops the slot.
func Lagged(ctx context.Context, r1, r2 *pgxpool.Pool, r1DSN string, toxi *faults.Toxiproxy, name, schema string, lag time.Duration, lg *log.Logger) (stop func() error, err error) {
	slot := name + "_mrec"
	if _, err := r1.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'test_decoding')`, slot); err != nil {
		return nil, err
	}
	dropSlot := func() error { return DropSlot(context.Background(), r1DSN, slot, 30*time.Second) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = dropSlot()
		return nil, err
	}
	link, err := toxi.Link(name+"-mrec", ln.Addr().String())
	if err == nil {
		_, err = link.Delay(faults.Upstream, lag, 0)
	}
	if err != nil {
		ln.Close()
		_ = dropSlot()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	rcv := &Receiver{Pool: r2, Log: lg}
	go rcv.Serve(rctx, ln)
	snd := &Sender{Pool: r1, Region: "R1", Schema: schema, Slot: slot, Peer: link.Addr(), Tick: 10 * time.Millisecond, Log: lg}
	done := make(chan struct{})
	go func() {
		defer close(done)
		snd.Run(rctx)
	}()
	return func() error {
		cancel()
		<-done
		_ = link.Heal()
		return dropSlot()
	}, nil
}
