package main

import (
	"io"

	"github.com/idemcheck/idemcheck/checker/checkcmd"
)

// cmdCheck is `idemcheck check FILE [--html DIR] [--json FILE] [--junit FILE]`;
// it returns the exit code (0 pass, 1 violation, 2 unreadable or empty input,
// 3 no violation but something undecided).
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	return checkcmd.Run(args, stdout, stderr)
}
