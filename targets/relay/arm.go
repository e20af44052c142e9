package relay

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/targets/failpoint"
)

// ArmFlag arms failpoints from a "-failpoints" value ("name=action;...").
// The failpoint package's own start-up arming (its environment variable) runs
// before the delivery tiers have added their points to the catalogue, so
// these tiers take the same list as a flag, applied before their first
// instruction that meets a point.
func ArmFlag(v string) error {
	for _, kv := range strings.Split(v, ";") {
		if kv == "" {
			continue
		}
		name, act, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-failpoints entry %q is not name=action", kv)
		}
		if err := failpoint.Arm(name, act); err != nil {
			return fmt.Errorf("-failpoints: %w", err)
		}
	}
	return nil
}
