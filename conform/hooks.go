package conform

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
)

// startHooks registers the service's webhook handler with fakepsp, through
// a Toxiproxy link to the first instance so a check can lose its answers.
func startHooks(cfg *config.Config, e *scenario.Env, bases []string, expand func(string) string, proc faults.Proc, ready func(context.Context) error, stderr io.Writer) error {
	w := cfg.Webhook
	var urls []string
	if w.URL != "" {
		urls = []string{expand(w.URL)}
	} else {
		for _, b := range bases {
			urls = append(urls, strings.TrimRight(b, "/")+w.Path)
		}
	}
	u, err := url.Parse(urls[0])
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", urls[0])
	}
	tp, err := e.Proxy()
	if err != nil {
		return fmt.Errorf("start Toxiproxy: %w", err)
	}
	link, err := tp.Link("webhook", u.Host)
	if err != nil {
		return err
	}
	endpoint := *u
	endpoint.Host = link.Addr()
	ep := endpoint.String()
	register := func() error {
		_, err := e.Local.RegisterWebhook(ep, w.Events...)
		return err
	}
	e.Hooks = &scenario.Hooks{Cfg: w, URLs: urls, Endpoint: ep, Link: link, Proc: proc, Ready: ready, Register: register}
	if proc == nil && w.Path != "" && len(e.Procs) > 0 {
		e.Hooks.Proc = e.Procs[0]
		e.Hooks.Ready = func(ctx context.Context) error { return e.WaitReady(ctx, 0) }
	}
	fmt.Fprintf(stderr, "idemcheck run: fakepsp delivers %s to %s (through %s) from the first webhook check on\n", strings.Join(w.Events, ", "), urls[0], link.Addr())
	return nil
}
