// Package checkcmd is `idemcheck check`: read a history file, check it,
// write the reports. It lives apart from package main so it can be tested.
package checkcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker"
)

// Exit codes of `idemcheck check` (HISTORY.md).
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitBadInput  = 2
)

const usage = `usage: idemcheck check FILE [--html DIR] [--json FILE] [--junit FILE]
                       [--timeout DURATION] [--initial-balance MERCHANT=AMOUNT]...

Checks a history (HISTORY.md) and prints its violations.
Exit 0: no violation; 1: at least one violation; 2: the input could not be read.
Flags may come before or after FILE.
`

type balances map[string]int64

func (b balances) String() string { return fmt.Sprint(map[string]int64(b)) }

func (b balances) Set(s string) error {
	m, v, ok := strings.Cut(s, "=")
	if !ok || m == "" {
		return fmt.Errorf("want MERCHANT=AMOUNT, got %q", s)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("amount of %s: %w", m, err)
	}
	b[m] = n
	return nil
}

// Run runs `idemcheck check` with args (those after "check") and returns the
// exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	htmlDir := fs.String("html", "", "write one HTML picture per failing partition into `DIR`")
	jsonOut := fs.String("json", "", "write the violations as JSON to `FILE`")
	junitOut := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	timeout := fs.Duration("timeout", 10*time.Second, "porcupine's time budget per partition; past it a partition is undecided")
	initial := balances{}
	fs.Var(initial, "initial-balance", "a merchant's balance before the history, `MERCHANT=AMOUNT` (repeatable)")

	// flag stops at the first positional argument; parse again after it so
	// flags may follow FILE.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK
			}
			return ExitBadInput
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		files = append(files, rest[0])
		rest = rest[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "idemcheck check: want one FILE, got %d\n", len(files))
		fs.Usage()
		return ExitBadInput
	}
	name := files[0]
	h, err := readFile(name)
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck check:", err)
		return ExitBadInput
	}
	res := checker.Check(h, checker.CheckOptions{Timeout: *timeout, InitialBalances: initial})
	if err := res.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "idemcheck check: write report:", err)
		return ExitBadInput
	}
	if err := writeReports(res, *htmlDir, *jsonOut, *junitOut, stdout); err != nil {
		fmt.Fprintln(stderr, "idemcheck check:", err)
		return ExitBadInput
	}
	if !res.OK() {
		return ExitViolation
	}
	return ExitOK
}

func readFile(name string) (checker.History, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := checker.ReadJSONL(f)
	var ie *checker.InputError
	if errors.As(err, &ie) {
		ie.File = name
	}
	return h, err
}

func writeReports(res *checker.Result, htmlDir, jsonOut, junitOut string, stdout io.Writer) error {
	if htmlDir != "" {
		paths, err := res.WriteHTML(htmlDir)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(stdout, "picture:", p)
		}
	}
	if jsonOut != "" {
		if err := writeTo(jsonOut, res.WriteJSON); err != nil {
			return err
		}
	}
	if junitOut != "" {
		suite := "idemcheck " + filepath.Base(junitOut)
		if err := writeTo(junitOut, func(w io.Writer) error { return res.WriteJUnit(w, suite) }); err != nil {
			return err
		}
	}
	return nil
}

func writeTo(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}
