package fakepsp

import (
	"hash/fnv"
	"time"
)

// searchDelay is how long version i of an object takes to reach search:
// Stripe documents search as eventually consistent, not for read-after-write
// flows (data is normally searchable within a minute). With Config.SearchLag
// set, each version waits a share of it drawn from the seed and the object,
// between half the lag and the whole, so versions of different objects
// surface out of order; a retrieve by id is never delayed.
func (p *PSP) searchDelay(id string, i int) time.Duration {
	lag := p.cfg.SearchLag
	if lag <= 0 {
		return 0
	}
	h := fnv.New64a()
	var b [8]byte
	for k := range b {
		b[k] = byte(p.cfg.SearchSeed >> (8 * k))
	}
	h.Write(b[:])
	h.Write([]byte(id))
	h.Write([]byte{byte(i), byte(i >> 8)})
	half := lag / 2
	return half + time.Duration(h.Sum64()%uint64(lag-half+1))
}
