package kafka

import (
	"strconv"
	"testing"
	"time"
)

// Only a name of this config's runs, started over an hour ago, is stale.
func TestStaleRun(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	old, fresh := now.Add(-2*time.Hour).Unix(), now.Add(-time.Minute).Unix()
	for _, c := range []struct {
		topic, tmpl, run string
		ok               bool
	}{
		{"idemcheck-q-7-0a1b2c3d-t" + itoa(old), "idemcheck-{{run}}", "q-7-0a1b2c3d-t" + itoa(old), true},
		{"idemcheck-q-7-0a1b2c3d-t" + itoa(fresh), "idemcheck-{{run}}", "", false},
		{"pay-q-7-0a1b2c3d-t" + itoa(old) + "-in", "pay-{{run}}-in", "q-7-0a1b2c3d-t" + itoa(old), true},
		{"other-q-7-0a1b2c3d-t" + itoa(old), "idemcheck-{{run}}", "", false},
		{"idemcheck-q-7-0a1b2c3d", "idemcheck-{{run}}", "", false}, // a name from before the start time was in it
		{"idemcheck-payments", "idemcheck-{{run}}", "", false},
	} {
		run, ok := staleRun(c.topic, c.tmpl, now)
		if run != c.run || ok != c.ok {
			t.Errorf("staleRun(%q, %q) = %q %v, want %q %v", c.topic, c.tmpl, run, ok, c.run, c.ok)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
