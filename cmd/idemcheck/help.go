package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// wantsHelp reports a -h, -help or --help among args: help is an answer, so it
// goes to stdout with exit 0, while a usage error goes to stderr with exit 2.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		case "--", "-":
			return false
		}
	}
	return false
}

// withHelp runs a command; asked for help, its usage (which every command
// writes to its error stream) is sent to stdout and the exit code is 0.
func withHelp(cmd func(args []string, stdout, stderr io.Writer) int, args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		cmd([]string{"--help"}, stdout, stdout)
		return 0
	}
	return cmd(args, stdout, stderr)
}

// listChecks prints every check of `idemcheck run`, in the order it runs them.
func listChecks(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tWHAT\tRULE")
	for _, c := range checks.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Level, c.Title, c.Rule)
	}
	fmt.Fprintf(tw, "recount\t%s\t%s\t%s\n", scenario.Safety, "every order's charges counted again after the quiet period", "late effects")
	fmt.Fprintf(tw, "chaos\t%s\t%s\t%s\n", scenario.Safety, "--chaos: seeded faults on concurrent traffic, whole history checked", "HISTORY.md")
	_ = tw.Flush()
}

// listMutants prints every guard switch of the reference stack.
func listMutants(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SWITCH\tTIER\tSCENARIOS\tCAUGHT AS")
	for _, e := range mutant.Catalogue {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Switch, e.Tier, strings.Join(e.Scenarios, ","), e.CaughtAs)
	}
	_ = tw.Flush()
}

// parseNoArgs parses a command's flags, which take no positional argument:
// done is false when the command should stop now, with code (0 after help,
// 2 for a bad flag or a stray argument, named on stderr).
func parseNoArgs(fs *flag.FlagSet, args []string, stderr io.Writer, cmd string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return conform.ExitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "idemcheck %s: unexpected argument %q\n", cmd, fs.Arg(0))
		return conform.ExitUsage, false
	}
	return 0, true
}

// parseSeed reads a --seed flag: "" is 0 (draw one), else a positive
// integer; ok is false after naming a bad value on stderr.
func parseSeed(v string, stderr io.Writer, cmd string) (seed uint64, ok bool) {
	if v == "" {
		return 0, true
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil || s == 0 {
		fmt.Fprintf(stderr, "idemcheck %s: --seed %q: want a positive integer\n", cmd, v)
		return 0, false
	}
	return s, true
}
