package failpoint

import (
	"fmt"
	"strings"
)

// ArmList arms failpoints from a tier's "-failpoints" flag value
// ("name=action;..."): the one way a list is armed at start, so a tier
// restarted by the harness carries a point from its first instruction.
func ArmList(v string) error {
	for _, kv := range strings.Split(v, ";") {
		if kv == "" {
			continue
		}
		name, act, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-failpoints entry %q is not name=action", kv)
		}
		if err := Arm(name, act); err != nil {
			return fmt.Errorf("-failpoints: %w", err)
		}
	}
	return nil
}
