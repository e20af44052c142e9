package kit

import (
	"os"
	"testing"

	_ "github.com/idemcheck/idemcheck/targets/all" // every tier, so a suite's binary can become any of them
	"github.com/idemcheck/idemcheck/targets/tier"
)

// Main is a suite's TestMain. The harness starts each tier as a re-execution
// of the test binary, so Main first lets the binary become the tier it was
// started as (it never returns then); otherwise it runs the tests, then the
// after functions (servers a benchmark kept), and exits.
func Main(m *testing.M, after ...func()) {
	tier.Dispatch()
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.Exit(code)
}
