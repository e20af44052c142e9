package survey

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/stack/services"
)

// Runner sets targets up and runs idemcheck on them, each from its own
// folder as a user would, with the storage its about.yaml names.
type Runner struct {
	Bin  string // the idemcheck binary
	Home string // SURVEY_HOME of target <name> is Home/<name>
	Work string // reports and logs of the runs
	Log  io.Writer
	// Timeout bounds one setup and one run.
	Timeout time.Duration
	store   *storage
}

// Run is one idemcheck run of a target.
type Run struct {
	Target  string
	Seed    uint64
	Summary *Summary // nil when the run gave no report
	Err     string   // why there is no report (setup or run failed)
	Wall    time.Duration
}

// Setup runs the target's setup script into its SURVEY_HOME.
func (r *Runner) Setup(ctx context.Context, a About) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	logPath := filepath.Join(r.Work, a.Name+"-setup.log")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "bash", "./setup")
	cmd.Dir = a.Dir
	cmd.Env = append(os.Environ(), "SURVEY_HOME="+r.home(a))
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s/setup: %v\n%s", a.Dir, err, logtail.Lines(logPath, 20))
	}
	return nil
}

// RunOnce runs idemcheck once on the target with seed; only, when set,
// limits the checks (a replay).
func (r *Runner) RunOnce(ctx context.Context, a About, seed uint64, only []string) (run Run) {
	run = Run{Target: a.Name, Seed: seed}
	start := time.Now()
	defer func() { run.Wall = time.Since(start) }()
	env, undo, err := r.storageEnv(ctx, a, seed)
	defer undo()
	if err != nil {
		run.Err = fmt.Sprintf("storage %s: %v", a.Storage, err)
		return run
	}
	tag := fmt.Sprintf("%s-%d", a.Name, seed)
	jsonPath := filepath.Join(r.Work, tag+".json")
	logPath := filepath.Join(r.Work, tag+".log")
	args := []string{"run", "--seed", strconv.FormatUint(seed, 10), "--json", jsonPath,
		"--html", filepath.Join(r.Work, tag+"-html"), "--quiet"}
	if a.Reference {
		args = append(args, "--reference")
	} else {
		args = append(args, "--config", "idemcheck.yaml")
	}
	if len(only) > 0 {
		args = append(args, "--only", strings.Join(only, ","))
	}
	f, err := os.Create(logPath)
	if err != nil {
		run.Err = err.Error()
		return run
	}
	defer f.Close()
	rctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	cmd := exec.CommandContext(rctx, r.Bin, args...)
	cmd.Dir = a.Dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	// idemcheck stops its targets on SIGINT; the kill after the grace
	// period is for a run that hangs in its own stop.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		run.Err = fmt.Sprintf("idemcheck %s: %v\n%s", strings.Join(args, " "), err, logtail.Lines(logPath, 20))
		return run
	}
	s, err := ReadSummary(jsonPath)
	if err != nil {
		run.Err = fmt.Sprintf("%v\n%s", err, logtail.Lines(logPath, 20))
		return run
	}
	run.Summary = s
	return run
}

// Close stops the storage servers the runner started.
func (r *Runner) Close() {
	if r.store != nil {
		r.store.stop()
	}
}

func (r *Runner) home(a About) string { return filepath.Join(r.Home, a.Name) }

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 15 * time.Minute
}

// storageEnv gives a run its SURVEY_* environment: a flushed Valkey or a
// Postgres database of its own, dropped afterwards.
func (r *Runner) storageEnv(ctx context.Context, a About, seed uint64) ([]string, func(), error) {
	env := []string{"SURVEY_HOME=" + r.home(a)}
	if a.Reference || a.Storage == "memory" || a.Storage == "file" {
		return env, func() {}, nil
	}
	if r.store == nil {
		r.store = &storage{log: r.Log}
	}
	st, err := r.store.get(ctx, a.Storage)
	if err != nil {
		return nil, func() {}, err
	}
	switch a.Storage {
	case "valkey":
		addr := st.Valkey.Endpoint()
		if err := flushValkey(ctx, addr); err != nil {
			return nil, func() {}, err
		}
		return append(env, "SURVEY_VALKEY_ADDR="+addr, "SURVEY_VALKEY_URL=redis://"+addr+"/0"), func() {}, nil
	default:
		dsn, drop, err := freshDatabase(ctx, st.Postgres.Endpoint(), fmt.Sprintf("survey_%s_%d", a.Name, seed))
		if err != nil {
			return nil, func() {}, err
		}
		return append(env, "SURVEY_POSTGRES_DSN="+dsn), drop, nil
	}
}

// storage starts each kind of server once per survey.
type storage struct {
	log    io.Writer
	stacks map[string]*services.Stack
}

func (s *storage) get(ctx context.Context, kind string) (*services.Stack, error) {
	if st, ok := s.stacks[kind]; ok {
		return st, nil
	}
	if s.stacks == nil {
		s.stacks = map[string]*services.Stack{}
	}
	log := s.log
	if log == nil {
		log = io.Discard
	}
	st, err := services.Start(ctx, services.Options{Valkey: kind == "valkey", Postgres: kind == "postgres", Log: log})
	if err != nil {
		return nil, err
	}
	s.stacks[kind] = st
	return st, nil
}

func (s *storage) stop() {
	for _, st := range s.stacks {
		_ = st.Stop(context.Background())
	}
	s.stacks = nil
}
