package history

import "time"

// Now is the one clock of a history: wall-clock nanoseconds, which every process
// on one machine reads alike, so the harness, the PSP and the tiers' own
// processes can record into one file without translating clocks.
func Now() int64 { return time.Now().UnixNano() }
