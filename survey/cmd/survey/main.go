// Command survey regenerates docs/SURVEY.md: it sets up every survey target,
// runs idemcheck run on each with the config kept next to it, and writes the
// table. With --only it replays checks of one target instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/survey"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("survey", flag.ContinueOnError)
	fs.SetOutput(stderr)
	targets := fs.String("target", "", "comma-separated target names (folders of survey/); default every target")
	runs := fs.Int("runs", 1, "runs of each target (seeds --seed, --seed+1, ...); with --from and no --runs, every kept seed")
	seed := fs.String("seed", "1", "seed of the first run")
	only := fs.String("only", "", "replay: comma-separated check IDs; prints their verdicts, writes no table")
	out := fs.String("out", "docs/SURVEY.md", "the table, relative to the checkout")
	reports := fs.String("reports", "", "keep every run's JSON and HTML report and logs in this folder")
	home := fs.String("home", os.Getenv("IDEMCHECK_SURVEY_CACHE"), "where targets install their packages (default ~/.cache/idemcheck/survey)")
	from := fs.String("from", "", "write the table from the reports an earlier --reports or --keep run kept in this folder (.json or .json.gz), running nothing")
	keep := fs.String("keep", "", "keep every run's JSON report compressed in this folder, relative to the checkout (survey/runs: the reports behind docs/SURVEY.md)")
	timeout := fs.Duration("timeout", 15*time.Minute, "bound of one setup and of one run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := strconv.ParseUint(*seed, 10, 64)
	if err != nil {
		fmt.Fprintf(stderr, "survey: --seed %q: want an unsigned integer\n", *seed)
		return 2
	}
	if *runs < 1 || *runs > 20 {
		fmt.Fprintf(stderr, "survey: --runs %d: want 1 to 20\n", *runs)
		return 2
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "survey:", err)
		return 2
	}
	root, err := survey.ModuleRoot(wd)
	if err != nil {
		fmt.Fprintln(stderr, "survey:", err)
		return 2
	}
	runsSet := false
	fs.Visit(func(f *flag.Flag) { runsSet = runsSet || f.Name == "runs" })
	if *from != "" && !runsSet {
		*runs = 0 // every seed kept of each target
	}
	o := survey.Options{Root: root, Targets: split(*targets), Runs: *runs, Seed: s, Only: split(*only),
		Home: *home, Reports: *reports, From: *from, Log: stderr, Timeout: *timeout}
	if o.From != "" && (o.Reports != "" || len(o.Only) > 0 || *keep != "") {
		fmt.Fprintln(stderr, "survey: --from writes a table from kept reports: it takes neither --reports, --keep nor --only")
		return 2
	}
	if *keep != "" && len(o.Only) > 0 {
		fmt.Fprintln(stderr, "survey: --keep keeps the reports behind a table; a replay (--only) writes none")
		return 2
	}
	if o.From != "" && !filepath.IsAbs(o.From) {
		o.From = filepath.Join(root, o.From)
	}
	if *keep != "" && o.Reports == "" {
		// The runs' reports must outlive Generate to be kept.
		dir, err := os.MkdirTemp("", "idemcheck-survey-")
		if err != nil {
			fmt.Fprintln(stderr, "survey:", err)
			return 2
		}
		defer os.RemoveAll(dir)
		o.Reports = dir
	}
	var t *survey.Table
	if o.From != "" {
		if t, err = survey.FromReports(o); err == nil {
			t.Rewritten, t.RewrittenBy = survey.SurveyRevision(ctx, root), strings.TrimSpace("ci/survey "+strings.Join(args, " "))
		}
	} else {
		t, err = survey.Generate(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(stderr, "survey:", err)
		return 2
	}
	if len(o.Only) > 0 {
		return replayExit(t)
	}
	if o.From == "" {
		t.Command = strings.TrimSpace("ci/survey " + strings.Join(args, " "))
		if o.Reports != "" {
			if err := survey.WriteMeta(o.Reports, t); err != nil {
				fmt.Fprintln(stderr, "survey:", err)
				return 2
			}
		}
		if *keep != "" {
			dir := *keep
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			if err := survey.Keep(dir, t, o.Reports); err != nil {
				fmt.Fprintln(stderr, "survey: --keep:", err)
				return 2
			}
		}
	}
	md, problems := t.Markdown()
	path := *out
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		fmt.Fprintln(stderr, "survey:", err)
		return 2
	}
	fmt.Fprintf(stdout, "survey: wrote %s (%d targets, %s)\n", path, len(t.Rows), t.Wall.Round(time.Second))
	for _, p := range problems {
		fmt.Fprintln(stderr, "survey: problem:", p)
	}
	if len(problems) > 0 {
		return 1
	}
	return 0
}

// replayExit is 1 when a replayed check found a violation, as idemcheck run's
// exit code is.
func replayExit(t *survey.Table) int {
	for _, r := range t.Rows {
		for _, run := range r.Runs {
			if run.Summary == nil {
				return 2
			}
			if run.Summary.ExitCode != 0 {
				return 1
			}
		}
		if r.SetupErr != "" {
			return 2
		}
	}
	return 0
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
