package faults

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// The kinds of a latency burst: Toxiproxy's latency, jitter, slow_close and
// bandwidth, each stretching the time between a service's read and its
// later write over the link.
const (
	BurstLatency   = "latency"
	BurstJitter    = "jitter"
	BurstSlowClose = "slow_close"
	BurstBandwidth = "bandwidth"
)

// Burst is one latency burst on a link: held for Hold, in the reply
// direction (a read's rows, a statement's acknowledgement come back late).
type Burst struct {
	Kind    string
	Latency time.Duration // latency, jitter: each reply chunk's delay
	Jitter  time.Duration // jitter: the delay varies by up to this either way
	Close   time.Duration // slow_close: a connection's close is held this long
	Rate    int64         // bandwidth: KB/s
	Hold    time.Duration
}

func (b Burst) String() string {
	switch b.Kind {
	case BurstJitter:
		return fmt.Sprintf("jitter %s±%s for %s", b.Latency, b.Jitter, b.Hold)
	case BurstSlowClose:
		return fmt.Sprintf("slow_close %s with latency %s for %s", b.Close, b.Latency, b.Hold)
	case BurstBandwidth:
		return fmt.Sprintf("bandwidth %d KB/s for %s", b.Rate, b.Hold)
	}
	return fmt.Sprintf("latency %s for %s", b.Latency, b.Hold)
}

// DrawBurst draws a burst long enough to stretch a read-then-write inside
// one request or one batch: tens to hundreds of milliseconds per round
// trip, held for half a second to a second and a half.
func DrawBurst(r *rand.Rand) Burst {
	kinds := []string{BurstLatency, BurstJitter, BurstSlowClose, BurstBandwidth}
	b := Burst{Kind: kinds[r.IntN(len(kinds))], Hold: time.Duration(500+r.IntN(1000)) * time.Millisecond}
	lat, jit, cl, rate := 40+r.IntN(260), 20+r.IntN(130), 50+r.IntN(250), 1+r.IntN(8)
	switch b.Kind {
	case BurstLatency:
		b.Latency = time.Duration(lat) * time.Millisecond
	case BurstJitter:
		b.Latency, b.Jitter = time.Duration(lat)*time.Millisecond, time.Duration(jit)*time.Millisecond
	case BurstSlowClose:
		// A pooled connection is seldom closed within a burst: a short
		// latency comes with it, so the burst holds something back.
		b.Close, b.Latency = time.Duration(cl)*time.Millisecond, time.Duration(lat/4)*time.Millisecond
	case BurstBandwidth:
		b.Rate = int64(rate)
	}
	return b
}

// Burst puts b on the link's reply direction and returns its undo and a
// count of what it held back: reply chunks delayed, or closes held. A
// burst nothing crossed proved nothing. On a user's toxiproxy-server the
// built-in toxic of the kind is used and the bytes that crossed the link
// meanwhile stand for the count.
func (l *Link) Burst(b Burst) (Undo, func() int64, error) {
	if l.remote != nil {
		typ, attrs := b.Kind, map[string]any{}
		switch b.Kind {
		case BurstLatency, BurstJitter:
			typ, attrs["latency"], attrs["jitter"] = "latency", b.Latency.Milliseconds(), b.Jitter.Milliseconds()
		case BurstSlowClose:
			attrs["delay"] = b.Close.Milliseconds() // the remote's slow_close alone
		case BurstBandwidth:
			attrs["rate"] = b.Rate
		}
		name, _, err := l.add(typ, Downstream, attrs)
		if err != nil {
			return nil, nil, err
		}
		base := l.remote.crossed()
		return l.remover(name), func() int64 { return l.remote.crossed() - base }, nil
	}
	name, tox, err := l.add("burst", Downstream, map[string]any{
		"latency": b.Latency.Milliseconds(), "jitter": b.Jitter.Milliseconds(), "close": b.Close.Milliseconds(), "rate": b.Rate,
	})
	if err != nil {
		return nil, nil, err
	}
	held := tox.(*burstToxic).held.Load
	return l.count(name, held), held, nil
}

// burstToxic is Toxiproxy's latency (with jitter), bandwidth and
// slow_close in one toxic that counts the chunks it delayed and the closes
// it held.
type burstToxic struct {
	Latency int64 `json:"latency"` // ms
	Jitter  int64 `json:"jitter"`  // ms
	Close   int64 `json:"close"`   // ms
	Rate    int64 `json:"rate"`    // KB/s
	held    atomic.Int64
}

func (t *burstToxic) delay(c *stream.StreamChunk) time.Duration {
	d := time.Duration(t.Latency) * time.Millisecond
	if t.Jitter > 0 {
		d += time.Duration(rand.Int64N(2*t.Jitter+1)-t.Jitter) * time.Millisecond
	}
	if t.Rate > 0 {
		d += time.Duration(int64(len(c.Data)) * int64(time.Millisecond) / t.Rate)
	}
	return d - time.Since(c.Timestamp)
}

func (t *burstToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				if t.Close > 0 {
					t.held.Add(1)
					select {
					case <-time.After(time.Duration(t.Close) * time.Millisecond):
					case <-stub.Interrupt:
						return // removed mid-wait: the close goes on without it
					}
				}
				stub.Close()
				return
			}
			if d := t.delay(c); d > 0 && (t.Latency > 0 || t.Rate > 0) {
				select {
				case <-time.After(d):
					t.held.Add(1)
				case <-stub.Interrupt:
					stub.Output <- c // removed mid-wait: pass it on, drop nothing
					return
				}
			}
			stub.Output <- c
		}
	}
}

func init() { toxics.Register("burst", new(burstToxic)) }
