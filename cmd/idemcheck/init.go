package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/probe"
)

const initUsage = `usage: idemcheck init [--config FILE]
       idemcheck init --probe URL [flags] --psp-listen ADDR     a service already running at URL
       idemcheck init --probe URL [flags] -- COMMAND [ARGS...]  idemcheck starts the service

Without --probe, init writes the commented starter config (as run --init).

With --probe, init sends a handful of requests to the service: a create, a
replay of its key, another amount under the same key, concurrent copies, a
create without a key, a declined card (pm_card_chargeDeclined), a create whose
PSP call fails with a 500, and a lookup. It writes the config whose outcome
rules, key placement, mismatch, in-progress and missing-key statuses, replay
header and profile are what the service answered, with comments saying what
it saw; idemcheck run --config FILE then needs no edit.

The service charges through fakepsp, which init starts. With a COMMAND after
--, init starts it as run will (its environment gets PORT, PSP_URL, PSP_KEY,
STATE_DIR; ${PORT} in URL is the port idemcheck picks, e.g.
--probe 'http://127.0.0.1:${PORT}'), and the config gets target.command. For a
service already running, start it with its PSP at http://ADDR and secret key
--psp-key (default sk_test_idemcheck), and pass --psp-listen ADDR: init, and
later run, serve fakepsp there.

Exit codes: 0 config written; 2 usage error, service down, or answers no
config can describe (the error says what was sent and what came back).

Flags:
`

// callerFlags collects --caller values, one caller each.
type callerFlags []map[string]string

func (c *callerFlags) String() string { return fmt.Sprint(len(*c)) }

func (c *callerFlags) Set(v string) error {
	h := map[string]string{}
	for _, part := range strings.Split(v, ";") {
		name, val, ok := strings.Cut(part, ":")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return fmt.Errorf("%q: want 'Header: value' (several joined with ;)", v)
		}
		h[name] = val
	}
	*c = append(*c, h)
	return nil
}

// cmdInit is `idemcheck init`: the starter config, or a probed one.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idemcheck init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "idemcheck.yaml", "the config file to write (never overwritten)")
	url := fs.String("probe", "", "probe the service at `URL` and write a config that matches its answers")
	var callers callerFlags
	fs.Var(&callers, "caller", "one client's credentials, `'Header: value'` (several joined with ;); repeat for each client (two for A6)")
	method := fs.String("method", "POST", "method of the create request")
	path := fs.String("path", "/payments", "path of the create request")
	body := fs.String("body", probe.DefaultBody, "create body `template`; {{amount}} is required, {{order_id}}, {{currency}}, {{payment_method}} are filled")
	ctype := fs.String("content-type", "application/json", "content type of the create body")
	keyHeader := fs.String("key-header", "", "the key's header (unset: try Idempotency-Key, X-Idempotency-Key, then a body field)")
	keyField := fs.String("key-body-field", "", "a top-level body field carries the key instead of a header")
	ready := fs.String("ready", "/", "`PATH` polled with GET until the service answers")
	pspListen := fs.String("psp-listen", "", "a running service's fakepsp `ADDR` (loopback host:port): init serves fakepsp there")
	pspKey := fs.String("psp-key", "", "a running service's fakepsp secret key (default sk_test_idemcheck)")
	pspName := fs.String("psp", "", "the PSP the service calls: stripe or adyen (default: learnt from the first request a started COMMAND makes to $PSP_URL; stripe for a running service)")
	hook := fs.String("webhook", "", "the service's webhook handler `PATH`: one signed event of a probed payment is sent there")
	credits := fs.String("credits", "", "with --webhook: a `URL` (or a path on the service) answering the payment's credit rows, naming it with {{psp_payment_id}}, {{payment_id}} or {{order_id}}")
	copies := fs.Int("copies", 4, "concurrent copies sent to see the in-progress answer")
	timeout := fs.Duration("timeout", 10*time.Second, "bound on one probe request")
	startTimeout := fs.Duration("start-timeout", 20*time.Second, "bound on a started COMMAND's first answer")
	fs.Usage = func() {
		fmt.Fprint(stderr, initUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return conform.ExitUsage
	}
	if *url == "" {
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "idemcheck init: unexpected argument %q (a command to start needs --probe URL)\n", fs.Arg(0))
			return conform.ExitUsage
		}
		return writeNew(*cfgPath, config.Starter, stdout, stderr, fmt.Sprintf("wrote %s; edit it, then: idemcheck run --config %s", *cfgPath, *cfgPath))
	}
	if _, err := os.Stat(*cfgPath); err == nil {
		fmt.Fprintf(stderr, "idemcheck init: %s exists (refusing to overwrite; pass another --config)\n", *cfgPath)
		return conform.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	text, err := probe.Run(ctx, probe.Options{
		URL: *url, Command: fs.Args(), Ready: *ready, StartTimeout: *startTimeout,
		Method: *method, Path: *path, Body: *body, ContentType: *ctype, Callers: callers,
		KeyHeader: *keyHeader, KeyBodyField: *keyField, PSPListen: *pspListen, PSPKey: *pspKey,
		Copies: *copies, Timeout: *timeout, Log: stderr, Webhook: *hook, Credits: *credits, PSP: *pspName,
	})
	if err != nil {
		fmt.Fprintln(stderr, "idemcheck init --probe:", err)
		return conform.ExitUsage
	}
	return writeNew(*cfgPath, text, stdout, stderr, fmt.Sprintf("wrote %s from what the service answered; read its comments, then: idemcheck run --config %s", *cfgPath, *cfgPath))
}

// writeNew writes a file that must not exist yet.
func writeNew(path, text string, stdout, stderr io.Writer, done string) int {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck init: %v (refusing to overwrite)\n", err)
		return conform.ExitUsage
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck init: %v\n", err)
		return conform.ExitUsage
	}
	fmt.Fprintln(stdout, done)
	return 0
}

// runInitProbe recognises `run --init --probe ...` and returns the
// arguments for init (without --init): a probe takes init's flags, not run's.
func runInitProbe(args []string) ([]string, bool) {
	var rest []string
	isInit, probe := false, false
	for i, a := range args {
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		switch {
		case a == "--init" || a == "-init" || a == "--init=true" || a == "-init=true":
			isInit = true
			continue
		case a == "--probe" || a == "-probe" || strings.HasPrefix(a, "--probe=") || strings.HasPrefix(a, "-probe="):
			probe = true
		}
		rest = append(rest, a)
	}
	return rest, isInit && probe
}
