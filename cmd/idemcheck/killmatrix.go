package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/reference"
	servers "github.com/idemcheck/idemcheck/stack/services"
)

// killMatrix is `idemcheck run --reference --chaos --kill-matrix`: every
// switch chaos accepts and the reference with none (or the switches of
// --mutant, where "none" is the reference with no switch),
// each under seeds seed, seed+1, ... for d; it prints the matrix and exits 0
// only when every switch was caught with its exact kinds in every seed and
// the no-switch runs found nothing.
func killMatrix(ctx context.Context, mutants string, seed uint64, seeds int, d time.Duration, out string, stdout, stderr io.Writer) int {
	if seeds <= 0 {
		fmt.Fprintln(stderr, "idemcheck run --kill-matrix: --kill-seeds must be at least 1")
		return conform.ExitUsage
	}
	if seed == 0 {
		seed = rand.Uint64N(1<<53) + 1
	}
	// With --html DIR every run's reports are kept (DIR/<switch>/<seed>),
	// so a cell that was not caught, or a finding without a switch, can be
	// read afterwards instead of rerun in the hope it shows again.
	m := reference.Matrix{Duration: d, Log: io.Discard, Out: out}
	for i := range seeds {
		m.Seeds = append(m.Seeds, seed+uint64(i))
	}
	if mutants != "" {
		accepted, refused := reference.ChaosSwitches()
		for _, sw := range strings.Split(mutants, ",") {
			sw = strings.TrimSpace(sw)
			if sw == "none" {
				m.Switches = append(m.Switches, "") // the reference with no switch
				continue
			}
			if why, ok := refused[sw]; ok {
				fmt.Fprintf(stderr, "idemcheck run --kill-matrix: %s\n", why)
				return conform.ExitUsage
			}
			if !contains(accepted, sw) {
				fmt.Fprintf(stderr, "idemcheck run --kill-matrix: unknown switch %q (chaos accepts: %s)\n", sw, strings.Join(accepted, ", "))
				return conform.ExitUsage
			}
			m.Switches = append(m.Switches, sw)
		}
	}
	fmt.Fprintf(stderr, "idemcheck run --kill-matrix: seeds %d..%d, %s each (rerun: --seed %d --kill-seeds %d --duration %s)\n",
		seed, seed+uint64(seeds)-1, d, seed, seeds, d)
	// R1's servers are started once and shared, as the bench's matrix
	// does: each run still names its own databases, key prefixes and topics.
	svc, err := servers.Start(ctx, servers.Options{Postgres: true, Valkey: true, Kafka: true, Log: io.Discard})
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck run --kill-matrix: servers: %v\n", err)
		return conform.ExitUnreachable
	}
	defer func() { _ = svc.Stop(context.WithoutCancel(ctx)) }()
	m.Services = svc
	runs := m.Run(ctx, func(r reference.MatrixRun) { fmt.Fprintf(stderr, "kill matrix: %s\n", r) })
	reference.PrintMatrix(stdout, runs)
	s := reference.Summarize(runs)
	fmt.Fprintf(stdout, "kill matrix: %d of %d switch runs caught with their kinds (kill rate %.2f), detect p50 %.1f s, max %.1f s; no switch: %d of %d runs clean\n",
		s.Caught, s.Runs, s.KillRate, s.DetectP50, s.DetectMax, s.CleanRuns, s.NoSwitchRuns)
	if s.CoverageMean >= 0 {
		fmt.Fprintf(stdout, "kill matrix: chaos coverage %.0f%% on average, %.0f%% at least (cells of fault, shape, key and meaning field each run's config allowed that its chaos exercised)\n", s.CoverageMean, s.CoverageMin)
	}
	if s.Caught != s.Runs || s.CleanRuns != s.NoSwitchRuns || ctx.Err() != nil {
		return conform.ExitViolation
	}
	return conform.ExitPass
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
