package tier

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestArgValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-listen", "x", "-name", "api-2"}, "api-2"},
		{[]string{"--name=worker-1"}, "worker-1"},
		{[]string{"-name"}, ""},
		{[]string{"-names", "x"}, ""},
	} {
		if got := argValue(c.args, "name"); got != c.want {
			t.Errorf("argValue(%v) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestProfileWrittenWhereTheEnvironmentSays: with the variable set, a tier
// leaves a non-empty profile named after its tier, -name and pid.
func TestProfileWrittenWhereTheEnvironmentSays(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCPUProfile, dir)
	stop := startProfile("api", []string{"-name", "api-1"})
	stop()
	b, err := os.ReadFile(filepath.Join(dir, "api-api-1-"+strconv.Itoa(os.Getpid())+".pprof"))
	if err != nil || len(b) == 0 {
		t.Fatalf("profile: %v, %d bytes", err, len(b))
	}
	t.Setenv(EnvCPUProfile, "")
	startProfile("api", nil)() // unset: nothing written, nothing fails
}
