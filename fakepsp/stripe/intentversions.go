package stripe

import (
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// Version is the PaymentIntent as it was at one moment (real time). Its
// JSON is on disk (Ref), read back only for a search that finds it; memory
// keeps only the fields search matches on (Fields), so a soak's thousands
// of intents do not each hold every rendering they ever had (issue 54).
// The rendering stays in memory (versionStore) instead when there is no
// store or writing to it failed. 88 bytes: the status a word, and no
// creation time (the intent's, which never changes).
type Version struct {
	Ref                    spill.Ref
	at                     time.Duration // since versionEpoch, on the monotonic clock
	currency, latestCharge string
	amount                 int64
	metadata               core.Metadata
	status                 word
}

// versionOf keeps f, but its creation time, in a Version.
func versionOf(f SearchFields) Version {
	return Version{currency: f.Currency, latestCharge: f.LatestCharge, amount: f.Amount, metadata: f.Metadata, status: wordOf(f.Status)}
}

// Fields are the version's search fields; created is its intent's.
func (v Version) Fields(created int64) SearchFields {
	return SearchFields{Status: v.status.String(), Currency: v.currency, LatestCharge: v.latestCharge,
		Amount: v.amount, Created: created, Metadata: v.metadata}
}

// versionEpoch is what versions' times count from: 8 bytes each, not a
// time.Time's 24, and compared on the same monotonic clock as before.
var versionEpoch = time.Now()

// At is when the version was made.
func (v Version) At() time.Time { return versionEpoch.Add(v.at) }

// versionStore keeps the JSON of every intent's versions of one PSP.
type versionStore struct {
	disk   *spill.Store    // nil: in memory only
	failed *spill.FirstErr // the PSP's reads that failed (API.ReadErr)
	mu     sync.Mutex
	mem    map[versionKey]map[string]any // the renderings not on disk
}

// versionKey names a version by its intent's id, not its *Intent: the
// intent may be evicted and read back as another (intentBook).
type versionKey struct {
	pi string
	i  int
}

func (s *versionStore) keep(k versionKey, snap map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = map[versionKey]map[string]any{}
	}
	s.mem[k] = snap
}

func (s *versionStore) inMemory(k versionKey) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.mem[k]
	return snap, ok
}
