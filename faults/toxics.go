package faults

import (
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// dropToxic swallows every byte after the first Bytes on its stream and closes
// the connection, like Toxiproxy's limit_data, but counts what it dropped: a
// dropped reply chunk is the proof that the server acted and answered.
type dropToxic struct {
	Bytes   int64 `json:"bytes"`
	dropped atomic.Int64
}

type dropState struct{ sent int64 }

func (t *dropToxic) NewState() interface{} { return new(dropState) }

func (t *dropToxic) Pipe(stub *toxics.ToxicStub) {
	st := stub.State.(*dropState)
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			room := t.Bytes - st.sent
			if room < 0 {
				room = 0
			}
			if room < int64(len(c.Data)) {
				t.dropped.Add(1)
				c.Data = c.Data[:room]
			}
			if len(c.Data) > 0 {
				stub.Output <- c
				st.sent += int64(len(c.Data))
			}
			if st.sent >= t.Bytes {
				stub.Close()
				return
			}
		}
	}
}

// holdToxic lets nothing through and never closes the connection, like
// Toxiproxy's timeout with 0, but counts the chunks it held back.
type holdToxic struct {
	held atomic.Int64
}

func (t *holdToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			t.held.Add(1)
		}
	}
}

// Cleanup closes the held connections when the toxic is removed, so a client
// still waiting sees its connection end rather than hang forever.
func (t *holdToxic) Cleanup(stub *toxics.ToxicStub) { stub.Close() }

// lagToxic delays every chunk by Latency milliseconds, like Toxiproxy's
// latency without jitter, and counts the chunks it delayed: a lag nothing
// crossed is a lag that proved nothing.
type lagToxic struct {
	Latency int64 `json:"latency"`
	lagged  atomic.Int64
}

func (t *lagToxic) Pipe(stub *toxics.ToxicStub) {
	d := time.Duration(t.Latency) * time.Millisecond
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			sleep := d - time.Since(c.Timestamp)
			select {
			case <-time.After(sleep):
				t.lagged.Add(1)
				stub.Output <- c
			case <-stub.Interrupt:
				stub.Output <- c // removed mid-wait: pass it on, drop nothing
				return
			}
		}
	}
}

func init() {
	toxics.Register("drop_reply", new(dropToxic))
	toxics.Register("hold_reply", new(holdToxic))
	toxics.Register("lag", new(lagToxic))
}
