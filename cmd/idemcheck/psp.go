package main

import (
	"context"
	"io"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/fakepsp"
)

// cmdPSP is `idemcheck psp`: the fake PSP standalone, until SIGINT/SIGTERM.
func cmdPSP(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return fakepsp.RunStandalone(ctx, args, stdout, stderr)
}
