package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Toxiproxy is an in-process Toxiproxy server. Its HTTP API listens on a
// loopback port, so toxiproxy-cli and the Go client can drive a live run.
type Toxiproxy struct {
	srv  *toxiproxy.ApiServer
	http *http.Server
	ln   net.Listener
}

// StartToxiproxy starts the server with its API on 127.0.0.1 and a free port.
func StartToxiproxy() (*Toxiproxy, error) {
	// Toxics log through zerolog's global logger at trace level; a run's
	// output is for its verdict, not for every interrupted pipe.
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.New(io.Discard))
	// srv.Listen cannot report an ephemeral port, so the API is served on a
	// listener of our own.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("toxiproxy: listen for API: %w", err)
	}
	hs := &http.Server{Handler: srv.Routes(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &Toxiproxy{srv: srv, http: hs, ln: ln}, nil
}

// APIAddr is the host:port of the HTTP API (toxiproxy-cli -h http://ADDR).
func (t *Toxiproxy) APIAddr() string { return t.ln.Addr().String() }

// Link opens a new proxy named name on a free loopback port in front of upstream.
func (t *Toxiproxy) Link(name, upstream string) (*Link, error) {
	return t.LinkOn(name, "127.0.0.1:0", upstream)
}

// LinkOn opens a proxy on a given listen address (for a Kafka listener whose
// advertised address must be known before the broker starts).
func (t *Toxiproxy) LinkOn(name, listen, upstream string) (*Link, error) {
	p := toxiproxy.NewProxy(t.srv, name, listen, upstream)
	if err := t.srv.Collection.Add(p, true); err != nil {
		return nil, fmt.Errorf("toxiproxy: link %q -> %s: %w", name, upstream, err)
	}
	return &Link{name: name, proxy: p, upstream: upstream}, nil
}

// Unlink stops l's proxy and removes it from the server. A link made for
// one fault (client-reply-lost makes one per intent) must not stay for the
// rest of the run: a soak's hour made a thousand, each holding a logger
// and its toxics' state.
func (t *Toxiproxy) Unlink(l *Link) error {
	if err := t.srv.Collection.Remove(l.name); err != nil {
		return fmt.Errorf("toxiproxy: unlink %q: %w", l.name, err)
	}
	return nil
}

// Stop closes every link and the API.
func (t *Toxiproxy) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := []error{t.http.Shutdown(ctx)}
	errs = append(errs, t.srv.Collection.Clear())
	return errors.Join(errs...)
}
