package tier

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
)

// EnvCPUProfile names a directory: a tier started with it set writes a CPU
// profile of its whole life there, as TIER[-NAME]-PID.pprof, when it stops
// (SIGTERM or SIGINT; a SIGKILLed tier writes nothing usable). It is an
// environment variable, not a flag, so every tier has it without a flag of
// its own and a child started by Command inherits it from `idemcheck bench`.
const EnvCPUProfile = "IDEMCHECK_CPUPROFILE_DIR"

// startProfile starts the CPU profile $IDEMCHECK_CPUPROFILE_DIR asks for and
// returns what stops it; with the variable unset it does nothing. A profile
// that cannot be started is said on stderr and the tier runs without it: a
// measurement aid must not stop the tier it measures.
func startProfile(tierName string, args []string) func() {
	dir := os.Getenv(EnvCPUProfile)
	if dir == "" {
		return func() {}
	}
	label := tierName
	if n := argValue(args, "name"); n != "" && n != tierName {
		label += "-" + n
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", label, os.Getpid()))
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tier %s: %s: %v (running without a CPU profile)\n", tierName, EnvCPUProfile, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "tier %s: CPU profile: %v (running without one)\n", tierName, err)
		f.Close()
		_ = os.Remove(path)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "tier %s: CPU profile %s: %v\n", tierName, path, err)
		}
	}
}

// argValue finds flag -name (or --name) in args, as "-name v" or "-name=v".
func argValue(args []string, name string) string {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
