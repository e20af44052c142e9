package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

// Link is one proxy between a client and a server.
type Link struct {
	name     string
	upstream string
	proxy    *toxiproxy.Proxy // the embedded server's; nil on a remote link
	remote   *remoteProxy     // the user's toxiproxy-server's; nil when embedded
	seq      atomic.Int64
	fired    atomic.Int64

	mu sync.Mutex
	// counters are the counting faults' counts, by fault, while armed; an
	// undone one's final count moves to fired (a chaos run arms thousands
	// on one link: each kept would keep its toxic alive).
	counters    map[int64]func() int64
	nextCounter int64
}

// Undo removes the fault it was returned with.
type Undo func() error

// Name is the proxy's name in the Toxiproxy API.
func (l *Link) Name() string { return l.name }

// Addr is the address clients dial instead of the upstream.
func (l *Link) Addr() string {
	if l.remote != nil {
		return l.remote.addr
	}
	return l.proxy.Listen
}

// Upstream is the address of the server behind the link.
func (l *Link) Upstream() string { return l.upstream }

// Fired counts what the link's counting faults caught: reply chunks dropped or
// held, and enable/disable toggles. A spec asserts it is > 0 after its fault.
func (l *Link) Fired() int64 {
	if l.remote != nil {
		return l.fired.Load() + l.remote.undelivered()
	}
	// Under the lock: a count moving from counters to fired is seen once.
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.fired.Load()
	for _, c := range l.counters {
		n += c()
	}
	return n
}

// Stream names the direction a toxic applies to.
type Stream string

// Toxiproxy's two directions: upstream carries requests, downstream replies.
const (
	Upstream   Stream = "upstream"
	Downstream Stream = "downstream"
)

func (l *Link) add(typ string, stream Stream, attrs map[string]any) (string, any, error) {
	name := fmt.Sprintf("%s_%s_%d", typ, stream, l.seq.Add(1))
	if l.remote != nil {
		return name, nil, l.remote.add(name, typ, stream, attrs)
	}
	body, err := json.Marshal(map[string]any{
		"name": name, "type": typ, "stream": string(stream), "toxicity": 1.0, "attributes": attrs,
	})
	if err != nil {
		return "", nil, err
	}
	w, err := l.proxy.Toxics.AddToxicJson(strings.NewReader(string(body)))
	if err != nil {
		return "", nil, fmt.Errorf("link %s: add %s toxic: %w", l.name, typ, err)
	}
	return name, w.Toxic, nil
}

// count adds a counting fault's count to Fired; the Undo it returns
// removes the fault named name and keeps its count without it.
func (l *Link) count(name string, c func() int64) Undo {
	l.mu.Lock()
	id := l.nextCounter
	l.nextCounter++
	if l.counters == nil {
		l.counters = map[int64]func() int64{}
	}
	l.counters[id] = c
	l.mu.Unlock()
	remove := l.remover(name)
	return func() error {
		if err := remove(); err != nil {
			return err // still armed: still counting
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if c, ok := l.counters[id]; ok {
			delete(l.counters, id)
			l.fired.Add(c())
		}
		return nil
	}
}

func (l *Link) remover(name string) Undo {
	return func() error {
		if l.remote != nil {
			return l.remote.remove(name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return l.proxy.Toxics.RemoveToxic(ctx, name)
	}
}

// LoseReply lets requests through but drops every reply byte and closes the
// connection: the server acts, the client sees EOF. Add it after the round
// trips that must succeed (a connection's handshake), before the one to lose.
func (l *Link) LoseReply() (Undo, error) { return l.LoseReplyAfter(0) }

// LoseReplyAfter lets the first n reply bytes of each connection through, then
// drops the rest.
func (l *Link) LoseReplyAfter(n int64) (Undo, error) {
	name, tox, err := l.add("drop_reply", Downstream, map[string]any{"bytes": n})
	if err != nil {
		return nil, err
	}
	if d, ok := tox.(*dropToxic); ok {
		return l.count(name, d.dropped.Load), nil
	}
	return l.remover(name), nil
}

// HoldReply lets requests through and holds every reply: the client hangs until
// its own deadline. Undoing it closes the held connections.
func (l *Link) HoldReply() (Undo, error) {
	name, tox, err := l.add("hold_reply", Downstream, map[string]any{})
	if err != nil {
		return nil, err
	}
	if h, ok := tox.(*holdToxic); ok {
		return l.count(name, h.held.Load), nil
	}
	return l.remover(name), nil
}

// Delay adds latency (with jitter) to one direction.
func (l *Link) Delay(stream Stream, d, jitter time.Duration) (Undo, error) {
	name, _, err := l.add("latency", stream, map[string]any{
		"latency": d.Milliseconds(), "jitter": jitter.Milliseconds(),
	})
	if err != nil {
		return nil, err
	}
	return l.remover(name), nil
}

// Lag delays one direction by d, like Delay, and returns a count of the
// chunks it delayed (Delay's latency toxic counts nothing).
func (l *Link) Lag(stream Stream, d time.Duration) (Undo, func() int64, error) {
	name, tox, err := l.add("lag", stream, map[string]any{"latency": d.Milliseconds()})
	if err != nil {
		return nil, nil, err
	}
	if l.remote != nil {
		// A remote server counts no lagged chunks; the bytes that crossed
		// the link while it lagged stand for them.
		base := l.remote.crossed()
		return l.remover(name), func() int64 { return l.remote.crossed() - base }, nil
	}
	lagged := tox.(*lagToxic).lagged.Load
	return l.count(name, lagged), lagged, nil
}

// Cut stops data in both directions without closing connections, like a
// partition: both sides wait until their own timeouts.
func (l *Link) Cut() (Undo, error) {
	up, _, err := l.add("timeout", Upstream, map[string]any{"timeout": 0})
	if err != nil {
		return nil, err
	}
	down, _, err := l.add("timeout", Downstream, map[string]any{"timeout": 0})
	if err != nil {
		_ = l.remover(up)()
		return nil, err
	}
	return func() error {
		e1 := l.remover(up)()
		e2 := l.remover(down)()
		if e1 != nil {
			return e1
		}
		return e2
	}, nil
}

// Reset closes connections with a TCP RST after the given time (0: at once).
func (l *Link) Reset(after time.Duration) (Undo, error) {
	name, _, err := l.add("reset_peer", Downstream, map[string]any{"timeout": after.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return l.remover(name), nil
}

// SlowClose delays the closing of connections by d.
func (l *Link) SlowClose(d time.Duration) (Undo, error) {
	name, _, err := l.add("slow_close", Downstream, map[string]any{"delay": d.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return l.remover(name), nil
}

// Bandwidth limits one direction to kbps kilobytes per second.
func (l *Link) Bandwidth(stream Stream, kbps int64) (Undo, error) {
	name, _, err := l.add("bandwidth", stream, map[string]any{"rate": kbps})
	if err != nil {
		return nil, err
	}
	return l.remover(name), nil
}

// Disable takes the link down: its listener closes and open connections drop.
// "Down" is not a toxic in Toxiproxy; it is a disabled proxy.
func (l *Link) Disable() (Undo, error) {
	if l.remote != nil {
		if err := l.remote.p.Disable(); err != nil {
			return nil, fmt.Errorf("link %s: disable: %w", l.name, err)
		}
		l.fired.Add(1)
		return l.Enable, nil
	}
	l.proxy.Stop()
	l.fired.Add(1)
	return l.Enable, nil
}

// Enable brings a disabled link back on the same address.
func (l *Link) Enable() error {
	if l.remote != nil {
		return l.remote.p.Enable()
	}
	err := l.proxy.Start()
	if err == toxiproxy.ErrProxyAlreadyStarted {
		return nil
	}
	return err
}

// Heal removes every toxic from the link.
func (l *Link) Heal() error {
	if l.remote != nil {
		return l.remote.heal()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.proxy.Toxics.ResetToxics(ctx)
	return nil
}
