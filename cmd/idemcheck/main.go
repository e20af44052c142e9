// Command idemcheck is the chaos and conformance harness for payment
// idempotency: `run` checks a payment endpoint under faults, `check` checks a
// recorded history offline, and `psp` serves the fake PSP on its own.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/idemcheck/idemcheck/checker/checkcmd"
	_ "github.com/idemcheck/idemcheck/targets/all" // registers the reference tiers
	"github.com/idemcheck/idemcheck/targets/tier"
)

const usage = `idemcheck: a chaos and conformance harness for payment idempotency

Usage:
  idemcheck run   [flags]          conformance of a payment endpoint under faults (run --help)
  idemcheck merge DIR... [flags]   a campaign's reports (run --seeds A-B --shard I/N --out DIR) as one answer (merge --help)
  idemcheck check FILE [flags]     check a recorded history offline (check --help)
  idemcheck gen   --out FILE       write a seeded legal history to check (gen --help)
  idemcheck init  --probe URL      probe a payment service, write the run config it needs (init --help)
  idemcheck psp   --listen ADDR    the fake PSP, standalone (psp --help)
  idemcheck demo  [--out DIR]      the main job: the reference stack passes, a mutant is caught
  idemcheck bench [--quick]        every path's rate next to its servers' raw rate (bench --help)
  idemcheck version
  idemcheck help CMD               a command's flags (the same as CMD --help)

  idemcheck run --list-checks      every check of run, its level and its rule
  idemcheck run --list-mutants     every guard switch of the reference stack

Exit codes of run: 0 pass; 1 violation, error or inconclusive; 2 config or usage
error; 3 target unreachable. Of check: 0 pass, 1 violation, 2 unreadable or
empty input, 3 undecided (nothing proven). Of bench: 0 every figure measured,
1 a measurement failed, 2 usage error, 3 servers unreachable.
`

// No heap profile is ever read from idemcheck, and at the runtime's
// default rate every allocation stack it samples keeps a bucket for the
// process's life: a one-hour soak kept adding about 28 a minute, memory
// that grew with the run's length. Set before any allocation main makes.
func init() { runtime.MemProfileRate = 0 }

func main() {
	// A re-executed copy of this binary may be a tier of the reference stack.
	tier.Dispatch()
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return withHelp(cmdRun, args[1:], stdout, stderr)
	case "merge":
		return withHelp(cmdMerge, args[1:], stdout, stderr)
	case "check":
		return withHelp(cmdCheck, args[1:], stdout, stderr)
	case "gen":
		return withHelp(checkcmd.RunGen, args[1:], stdout, stderr)
	case "psp":
		return withHelp(cmdPSP, args[1:], stdout, stderr)
	case "init":
		return withHelp(cmdInit, args[1:], stdout, stderr)
	case "demo":
		return withHelp(cmdDemo, args[1:], stdout, stderr)
	case "bench":
		return withHelp(cmdBench, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "idemcheck", versionString())
		return 0
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			switch args[1] {
			case "run", "merge", "check", "psp", "demo", "gen", "init", "bench":
				return dispatch([]string{args[1], "--help"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "idemcheck help: unknown command %q\n\n%s", args[1], usage)
			return 2
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "idemcheck: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
