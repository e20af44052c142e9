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
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
)

// Exit codes of `idemcheck check` (HISTORY.md).
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitBadInput  = 2
	// ExitUndecided: no violation found, but some partition was not decided
	// within the timeout: nothing was proven there, so it is not a pass.
	ExitUndecided = 3
)

const usage = `usage: idemcheck check FILE|- [--html DIR] [--json FILE] [--junit FILE] [--strict]
                       [--timeout DURATION] [--initial-balance MERCHANT=AMOUNT]...
FILE - reads the history from standard input.
Checks a history (docs/HISTORY.md) and prints its violations.
Exit 0: no violation and every partition decided; 1: at least one violation;
2: the input could not be read (an empty file included); 3: no violation
found but some partition undecided (nothing was proven there).
An unknown field is a warning on stderr (FILE:LINE: field "x"); --strict
makes it an error (exit 2). Flags may come before or after FILE.
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
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	htmlDir := fs.String("html", "", "write one HTML picture per failing partition into `DIR`")
	jsonOut := fs.String("json", "", "write the violations as JSON to `FILE`")
	junitOut := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	timeout := fs.Duration("timeout", 10*time.Second, "porcupine's time budget per partition; past it a partition is undecided")
	strict := fs.Bool("strict", false, "an unknown field is an error, not a warning")
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
	opts := checker.CheckOptions{Timeout: *timeout, InitialBalances: initial}
	res, code := check(name, opts, *strict, stderr)
	if res == nil {
		return code
	}
	if err := res.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "idemcheck check: write report:", err)
		return ExitBadInput
	}
	if err := writeReports(res, name, *htmlDir, *jsonOut, *junitOut, stdout); err != nil {
		fmt.Fprintln(stderr, "idemcheck check:", err)
		return ExitBadInput
	}
	return ExitCode(res)
}

// ExitCode is the exit code of `idemcheck check` for a result.
func ExitCode(res *checker.Result) int {
	switch res.Verdict() {
	case checker.VerdictViolations:
		return ExitViolation
	case checker.VerdictUndecided:
		return ExitUndecided
	}
	return ExitOK
}

// memoryLimit is the soft heap limit of one check: a 1M-op history lives in
// about 1 GB, and Go's default (collect when the heap doubles) would peak
// near 2 GB. GOMEMLIMIT and GOGC in the environment win.
const memoryLimit = 1536 << 20

// tuneGC does not collect below memoryLimit, and collects hard near it, for
// the one big allocation burst a check is: everything the read allocates is
// the history the check keeps, and a 1M-op check allocates about 1.1 GB more
// over the 0.75 GB it keeps, so a collection below the limit marks the whole
// history to free little. (Collecting at GOGC=400 once the check started
// cost about 0.5 CPU s more at 1M ops, the same peak.) undo restores the
// settings.
func tuneGC() (undo func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(memoryLimit)
	gc := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}

// streamLimit is the soft heap limit of a streamed check. Its heap is at
// most about 0.7 GB live (the first pass's names, or two pieces being
// checked), and the usual pace lets it grow to twice that: 1.6 GB peak RSS
// at 10M ops, 1.25 GB with this limit, at no measurable cost in time.
const streamLimit = 1200 << 20

// streamGC sets streamLimit unless GOMEMLIMIT or GOGC is set, and returns
// what puts the limit back.
func streamGC() (undo func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(streamLimit)
	return func() { debug.SetMemoryLimit(limit) }
}

// StreamAbove is the file size from which check streams the file in pieces
// (checker.CheckFile) instead of reading it whole: a 1M-op file (211 MB) is
// checked with less CPU whole (5.3-5.9 CPU s, 1.6 GB peak here) than
// streamed (6.3-7.9 CPU s, 1.0-1.1 GB); past about 1.2M ops whole would
// outgrow 2 GB. A variable so tests can stream every file.
var StreamAbove int64 = 256 << 20

// check reads and checks the history, whole or streamed, printing any
// warning; a nil result comes with the exit code.
func check(name string, opts checker.CheckOptions, strict bool, stderr io.Writer) (*checker.Result, int) {
	ro := history.ReadOptions{File: name, Strict: strict}
	var res *checker.Result
	var warns []*history.InputError
	var err error
	if st, serr := os.Stat(name); name != "-" && serr == nil && st.Mode().IsRegular() && st.Size() > StreamAbove {
		// A piece at a time holds little, and each piece is read in one
		// burst the check then keeps: collect at the usual pace, and
		// harder near streamLimit.
		defer streamGC()()
		res, warns, err = checker.CheckFile(name, opts, ro, checker.StreamOptions{})
	} else {
		defer tuneGC()()
		var h history.History
		h, warns, err = readFile(name, strict)
		if err == nil && len(h) > 0 {
			res = checker.Check(h, opts)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck check:", err)
		return nil, ExitBadInput
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, "idemcheck check: warning:", w)
	}
	if res == nil || res.Ops == 0 {
		// A broken recorder writes an empty file; passing it would make a
		// green gate out of nothing.
		fmt.Fprintf(stderr, "idemcheck check: %s: no operation at all: nothing to check\n", name)
		return nil, ExitBadInput
	}
	return res, ExitOK
}

func readFile(name string, strict bool) (history.History, []*history.InputError, error) {
	if name == "-" {
		// A pipeline (a converter of the user's logs) writes the history here.
		return history.ReadJSONLWith(os.Stdin, history.ReadOptions{File: "stdin", Strict: strict})
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return history.ReadJSONLWith(f, history.ReadOptions{File: name, Strict: strict})
}

func writeReports(res *checker.Result, input, htmlDir, jsonOut, junitOut string, stdout io.Writer) error {
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
		suite := "idemcheck check " + filepath.Base(input)
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
