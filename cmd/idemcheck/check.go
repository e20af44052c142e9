package main

import (
	"io"

	"github.com/idemcheck/idemcheck/checker/checkcmd"
)

// cmdCheck is `idemcheck check FILE [--html DIR] [--json FILE] [--junit FILE]`;
// it returns the exit code (0 no violation, 1 violation, 2 unreadable input).
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	return checkcmd.Run(args, stdout, stderr)
}
