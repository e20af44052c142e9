package faults

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// ProxyPrefix begins the name of every proxy idemcheck makes on a
// toxiproxy-server of the user's, so that what a killed run left can be
// told from the user's own proxies and swept.
const ProxyPrefix = "idemcheck-"

// RemoteToxiproxy is the user's own toxiproxy-server (a container beside the
// service): idemcheck makes its links there through the client library and
// removes them at the end. The server knows only Toxiproxy's own toxics, so
// a lost reply is limit_data, a held one timeout, a lag latency; what they
// caught is read from the server's proxy metrics (-proxy-metrics).
type RemoteToxiproxy struct {
	api     string
	host    string
	c       *toxiclient.Client
	run     string
	metrics *metricsReader

	mu      sync.Mutex
	made    []string
	sweeper *sweeper
}

// DialToxiproxy checks that api answers as a toxiproxy-server and sweeps the
// proxies that runs killed before their cleanup left there (those of its
// links' names or listen addresses: they would stand in the way).
func DialToxiproxy(api string) (*RemoteToxiproxy, error) {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("toxiproxy.api %q is not a URL", api)
	}
	c := toxiclient.NewClient(strings.TrimRight(api, "/"))
	if _, err := c.Version(); err != nil {
		return nil, fmt.Errorf("toxiproxy-server at %s does not answer GET /version: %w", api, err)
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	r := &RemoteToxiproxy{api: strings.TrimRight(api, "/"), host: u.Hostname(), c: c,
		run: fmt.Sprintf("%d-%s", time.Now().Unix(), hex.EncodeToString(b))}
	r.metrics = newMetricsReader(r.api + "/metrics")
	return r, nil
}

// API is the server's URL.
func (r *RemoteToxiproxy) API() string { return r.api }

// Blind says why the server's metrics cannot show what a fault caught ("" when
// they can): then no lost reply can be proved, and a check says so.
func (r *RemoteToxiproxy) Blind() string { return r.metrics.blind() }

// Link makes a proxy for a link named name: on listen (host:port on the
// server; "" for a free loopback port) in front of upstream, as the server
// sees it. A proxy a dead run left under this link's name or on its address
// is removed first, and said on the returned notes.
func (r *RemoteToxiproxy) Link(name, listen, upstream string) (*Link, []string, error) {
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	notes, err := r.sweepFor(name, listen)
	if err != nil {
		return nil, notes, err
	}
	full := ProxyPrefix + r.run + "-" + name
	p, err := r.c.CreateProxy(full, listen, upstream)
	if err != nil {
		return nil, notes, fmt.Errorf("toxiproxy-server %s: create proxy %s on %s -> %s: %w", r.api, full, listen, upstream, err)
	}
	r.mu.Lock()
	r.made = append(r.made, full)
	if r.sweeper != nil {
		r.sweeper.write(r.made)
	}
	r.mu.Unlock()
	addr := p.Listen
	if h, port, err := net.SplitHostPort(addr); err == nil && (h == "" || h == "0.0.0.0" || h == "::" || h == "[::]") {
		// A wildcard listen is reached on the server's own host.
		addr = net.JoinHostPort(r.host, port)
	}
	l := &Link{name: name, upstream: upstream, remote: &remoteProxy{p: p, addr: addr, name: full, m: r.metrics}}
	l.remote.base = l.remote.undeliveredNow()
	l.remote.crossedBase = l.remote.crossedNow()
	return l, notes, nil
}

// sweepFor removes proxies made by other idemcheck runs that hold this link's
// name or listen address: two runs cannot share one, so such a proxy is a
// killed run's leftover.
func (r *RemoteToxiproxy) sweepFor(name, listen string) ([]string, error) {
	all, err := r.c.Proxies()
	if err != nil {
		return nil, fmt.Errorf("toxiproxy-server %s: list proxies: %w", r.api, err)
	}
	var notes []string
	for n, p := range all {
		if !strings.HasPrefix(n, ProxyPrefix) || strings.HasPrefix(n, ProxyPrefix+r.run+"-") {
			continue
		}
		if !strings.HasSuffix(n, "-"+name) && (listen == "127.0.0.1:0" || p.Listen != listen) {
			continue
		}
		if err := p.Delete(); err != nil {
			return notes, fmt.Errorf("toxiproxy-server %s: remove %s, left by an earlier run on %s: %w", r.api, n, p.Listen, err)
		}
		notes = append(notes, fmt.Sprintf("removed proxy %s (%s -> %s), left on %s by an earlier run", n, p.Listen, p.Upstream, r.api))
	}
	return notes, nil
}

// Made lists the proxies this run created and has not removed.
func (r *RemoteToxiproxy) Made() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.made...)
}

// Stop removes every proxy this run made, then the sweeper.
func (r *RemoteToxiproxy) Stop() error {
	r.mu.Lock()
	made := r.made
	r.made = nil
	sw := r.sweeper
	r.sweeper = nil
	r.mu.Unlock()
	err := deleteProxies(r.api, made)
	if sw != nil {
		sw.stop()
	}
	return err
}

func deleteProxies(api string, names []string) error {
	c := toxiclient.NewClient(api)
	var errs []string
	for _, n := range names {
		p, err := c.Proxy(n)
		if err == nil {
			err = p.Delete()
		}
		if err != nil && !strings.Contains(err.Error(), "404") {
			errs = append(errs, fmt.Sprintf("%s: %v", n, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("toxiproxy-server %s: remove proxies: %s", api, strings.Join(errs, "; "))
	}
	return nil
}

// remoteProxy is one link's proxy on the user's server.
type remoteProxy struct {
	p           *toxiclient.Proxy
	addr        string
	name        string
	m           *metricsReader
	base        int64
	crossedBase int64

	mu    sync.Mutex
	armed map[string]int64 // a counting toxic's name: undelivered bytes when it was added
}

// remoteToxic maps idemcheck's counting toxics to the server's own.
func remoteToxic(typ string, attrs map[string]any) (string, map[string]any) {
	switch typ {
	case "drop_reply":
		return "limit_data", attrs
	case "hold_reply":
		return "timeout", map[string]any{"timeout": 0}
	case "lag":
		return "latency", attrs
	}
	return typ, attrs
}

func (rp *remoteProxy) add(name, typ string, stream Stream, attrs map[string]any) error {
	t, a := remoteToxic(typ, attrs)
	if typ == "drop_reply" || typ == "hold_reply" {
		rp.mu.Lock()
		if rp.armed == nil {
			rp.armed = map[string]int64{}
		}
		rp.armed[name] = rp.undeliveredNow()
		rp.mu.Unlock()
	}
	if _, err := rp.p.AddToxic(name, t, string(stream), 1.0, toxiclient.Attributes(a)); err != nil {
		return fmt.Errorf("proxy %s: add %s toxic: %w", rp.name, t, err)
	}
	return nil
}

func (rp *remoteProxy) remove(name string) error {
	rp.mu.Lock()
	at, counting := rp.armed[name]
	delete(rp.armed, name)
	rp.mu.Unlock()
	if err := rp.p.RemoveToxic(name); err != nil {
		return fmt.Errorf("proxy %s: remove toxic %s: %w", rp.name, name, err)
	}
	// The server counts a connection's bytes when it closes: a moment after
	// limit_data ends it, or when a held one is let go with its toxic. Give
	// that moment before what the toxic caught is read; on a loaded machine
	// it took more than 300 ms (a test's Fired read 0 under two packages'
	// load), and the bound only costs time when the toxic caught nothing.
	// Each read waits for the server's count to agree with itself (at least
	// 25 ms), so the loop needs no pause of its own.
	for end := time.Now().Add(time.Second); counting && rp.undeliveredNow() == at && time.Now().Before(end); {
	}
	return nil
}

func (rp *remoteProxy) heal() error {
	ts, err := rp.p.Toxics()
	if err != nil {
		return fmt.Errorf("proxy %s: list toxics: %w", rp.name, err)
	}
	for _, t := range ts {
		if err := rp.remove(t.Name); err != nil {
			return err
		}
	}
	return nil
}

// undelivered is the reply bytes the server took from the upstream and never
// passed on since the link was made: what a lost or held reply swallowed.
func (rp *remoteProxy) undelivered() int64 { return rp.undeliveredNow() - rp.base }

// undeliveredNow reads the count once two reads 25 ms apart agree (within a
// second): the server adds a connection's received bytes when its reading
// side ends and its sent bytes when its writing side ends, on two goroutines,
// so one read can catch a closing connection with its reply received and not
// yet counted as sent (seen on a loaded machine: 3 and 5 bytes that were
// delivered, counted as lost for a moment).
func (rp *remoteProxy) undeliveredNow() int64 {
	read := func() int64 { c := rp.m.read(rp.name); return c.recvDown - c.sentDown }
	prev := read()
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		time.Sleep(25 * time.Millisecond)
		cur := read()
		if cur == prev {
			return cur
		}
		prev = cur
	}
	return prev
}

func (rp *remoteProxy) crossed() int64 { return rp.crossedNow() - rp.crossedBase }

func (rp *remoteProxy) crossedNow() int64 {
	c := rp.m.read(rp.name)
	return c.recvDown + c.recvUp
}
