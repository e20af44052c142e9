// Package storytime turns SCENARIOS.md's story seconds into real durations with
// one knob, and gives every tier a clock the harness can move forward, so the
// 3600 s key window and the 7200 s buyer return are never slept through.
package storytime

import (
	"fmt"
	"os"
	"time"
)

// EnvScale overrides Scale in every process (tiers inherit the harness's
// environment), e.g. IDEMCHECK_STORY_SCALE=200ms.
const EnvScale = "IDEMCHECK_STORY_SCALE"

// Scale is the real duration of one story second. 150 ms keeps the story's
// 5 s deadline at 750 ms, far above scheduling noise on a loaded 2-core box,
// while a whole A1 story (phone timeout 10 s) stays under 2 s.
var Scale = 150 * time.Millisecond

func init() {
	if v := os.Getenv(EnvScale); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "storytime: %s=%q is not a positive duration; keeping %v\n", EnvScale, v, Scale)
			return
		}
		Scale = d
	}
}

// D returns s story seconds as a real duration.
func D(s float64) time.Duration { return time.Duration(s * float64(Scale)) }

// The story's constants (SCENARIOS.md), in story seconds.
const (
	Arrival      = 0.02
	Deadline     = 5.0
	PhoneTimeout = 10.0
	ClockMargin  = 1.0
	KeyWindow    = 3600.0
	BuyerBack    = 7200.0
	// PSPKeyWindow is the PSP's memory of a key: at least 24 h.
	PSPKeyWindow = 24 * 3600.0
)
