package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/idemcheck/idemcheck/bench"
)

// cmdBench is `idemcheck bench`: every path of the reference stack measured
// next to its servers' raw rate, in one run on servers it starts once. Exit
// codes: 0 every figure measured, 1 a measurement failed, 2 usage error, 3
// the servers did not start.
func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "the short run: smaller counts, under 4 minutes on 2 cores")
	out := fs.String("out", "idemcheck-bench", "report `DIR`: CPU profiles of every tier and of the harness per section, the chaos run's report")
	only := fs.String("only", "", "comma-separated sections to run: "+strings.Join(bench.Sections, ","))
	seedStr := fs.String("seed", "", "seed of the chaos section's schedule (printed when drawn)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: idemcheck bench [--quick] [--out DIR] [--only SECTIONS] [--seed N]")
		fmt.Fprintln(stderr, "Starts Postgres, Valkey and Kafka once and prints each path's figure next to its")
		fmt.Fprintln(stderr, "reference measured in the same run; the last line is `bench: key=value ...`.")
		fmt.Fprintln(stderr, "Exit codes: 0 every figure measured, 1 a measurement failed, 2 usage error, 3 servers unreachable.")
		fs.PrintDefaults()
	}
	if code, ok := parseNoArgs(fs, args, stderr, "bench"); !ok {
		return code
	}
	seed, ok := parseSeed(*seedStr, stderr, "bench")
	if !ok {
		return bench.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bench.Run(ctx, bench.Options{Quick: *quick, Out: *out, Only: idList(*only), Seed: seed, Stdout: stdout, Stderr: stderr})
}
