package checkcmd

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

const genUsage = `usage: idemcheck gen --out FILE [--ops N] [--seed N] [--unknown-rate F]

Writes a legal generated history (HISTORY.md) of about N ops: per intent a
create, a concurrent duplicate answered in_progress, the PSP's charge, the
ledger's credit and the push, plus balance reads; 8 concurrent clients. The
same seed writes the same file, so anyone can re-run a measured check:
  idemcheck gen --ops 1000000 --seed 1 --out 1m.jsonl && idemcheck check 1m.jsonl
Without --seed a seed is drawn from the clock; it is printed either way.
`

// RunGen runs `idemcheck gen` with args (those after "gen").
func RunGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, genUsage) }
	out := fs.String("out", "", "write the history to `FILE`")
	ops := fs.Int("ops", 1_000_000, "about how many ops")
	seed := fs.Int64("seed", 0, "the generator's seed (0: drawn from the clock)")
	unknown := fs.Float64("unknown-rate", 0.01, "share of client calls whose answer is lost")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitBadInput
	}
	if *out == "" || fs.NArg() > 0 || *ops <= 0 || *unknown < 0 || *unknown > 1 {
		fs.Usage()
		return ExitBadInput
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano()
	}
	fmt.Fprintf(stdout, "idemcheck gen: seed %d, about %d ops\n", *seed, *ops)
	n, err := genFile(*out, history.GenOptions{Seed: *seed, Ops: *ops, UnknownRate: *unknown})
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck gen:", err)
		return ExitBadInput
	}
	fmt.Fprintf(stdout, "idemcheck gen: wrote %d ops to %s (seed %d)\n", n, *out, *seed)
	return ExitOK
}

// writeFile writes h to the file name as JSONL.
func writeFile(name string, h history.History) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = history.WriteJSONL(w, h)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// genFile writes a generated history to the file name, a window at a time.
func genFile(name string, o history.GenOptions) (int, error) {
	f, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	n, _, err := history.GenerateJSONL(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
