// Package router is the reference stack's Region router (docs/SCENARIOS.md#G1): it sends
// each request to one Region's load balancer. The reference routes by the
// caller's home Region, so every copy of one caller's request meets the same
// claim store and a resend during replication lag finds IN_PROGRESS (G1). The
// mutant route-nearest-region follows the phone's nearest-Region hint
// instead, so a resend can land in a Region whose replica has not yet seen
// the claim. A failover moves a Region's callers to another Region (G2). The
// Region that answered is named in the reply's RegionHeader, which the phone
// records in the history.
package router

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

// RegionHeader names, on an answer, the Region that served it; the phone
// records it as the history's region field.
const RegionHeader = "X-Idemcheck-Region"

// NearestHeader is the phone's hint of its nearest Region (what GeoDNS or
// anycast would decide); only the mutant reads it.
const NearestHeader = "X-Idemcheck-Nearest"

// Router routes requests to Regions.
type Router struct {
	home    map[string]string // caller -> home Region
	def     string            // home Region of callers not listed
	nearest bool              // the mutant route-nearest-region
	hc      *http.Client

	mu       sync.Mutex
	regions  map[string]string // Region -> base URL of its LB
	failover map[string]string // failed Region -> the Region that took over
	served   map[string]int64
}

// New returns a router over regions (name -> LB URL); home maps callers to
// their home Region, def is the home of everyone else.
func New(regions, home map[string]string, def string, ms mutant.Set) (*Router, error) {
	if _, ok := regions[def]; !ok {
		return nil, fmt.Errorf("router: default home Region %q is not one of %v", def, keys(regions))
	}
	for c, r := range home {
		if _, ok := regions[r]; !ok {
			return nil, fmt.Errorf("router: home Region %q of caller %q is not one of %v", r, c, keys(regions))
		}
	}
	return &Router{regions: regions, home: home, def: def, nearest: ms.On(mutant.NearestRegion),
		hc:       &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second}},
		failover: map[string]string{}, served: map[string]int64{}}, nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SetRegion adds Region name (or moves it) to the LB at url: a standby
// Region's stack starts only when it is promoted.
func (rt *Router) SetRegion(name, url string) error {
	if name == "" || !strings.HasPrefix(url, "http") {
		return fmt.Errorf("router: Region %q at %q: want a name and an http URL", name, url)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.regions[name] = strings.TrimRight(url, "/")
	return nil
}

// Pick returns the Region a request of caller goes to, given the phone's
// nearest-Region hint, and that Region's LB URL.
func (rt *Router) Pick(caller, nearest string) (string, string) {
	r := rt.home[caller]
	if r == "" {
		r = rt.def
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if _, ok := rt.regions[nearest]; ok && rt.nearest {
		r = nearest
	}
	if to, ok := rt.failover[r]; ok {
		r = to
	}
	return r, rt.regions[r]
}

// ServeHTTP forwards one request and names the Region on the reply.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	caller, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	region, base := rt.Pick(strings.TrimSpace(caller), r.Header.Get(NearestHeader))
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "router: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	// Like the LB, the router never cancels a request the phone gave up on:
	// the server's deadline stops it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "router: "+err.Error(), http.StatusBadGateway)
		return
	}
	req.GetBody = nil // never replayed by net/http (docs/PITFALLS.md#net-http)
	req.Header = r.Header.Clone()
	req.Header.Del(NearestHeader)
	rt.mu.Lock()
	rt.served[region]++
	rt.mu.Unlock()
	resp, err := rt.hc.Do(req)
	w.Header().Set(RegionHeader, region)
	if err != nil {
		http.Error(w, "router: Region "+region+": "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.Header().Set(RegionHeader, region)
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// Fail moves every request bound for Region from to Region to; Restore undoes it.
func (rt *Router) Fail(from, to string) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if _, ok := rt.regions[from]; !ok {
		return fmt.Errorf("router: no Region %q", from)
	}
	if _, ok := rt.regions[to]; !ok || to == from {
		return fmt.Errorf("router: cannot fail %q over to %q", from, to)
	}
	rt.failover[from] = to
	return nil
}

// Restore routes Region from's callers back to it.
func (rt *Router) Restore(from string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	delete(rt.failover, from)
}

// Served counts requests sent to each Region.
func (rt *Router) Served() map[string]int64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := map[string]int64{}
	for k, v := range rt.served {
		out[k] = v
	}
	return out
}

// AdminHandler serves PUT /region?name=R2&url=..., PUT /failover?from=R1&to=R2,
// DELETE /failover?from=R1 and GET /router (requests per Region).
func (rt *Router) AdminHandler() map[string]http.Handler {
	return map[string]http.Handler{
		"/region": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPut {
				http.Error(w, "router: PUT", http.StatusMethodNotAllowed)
				return
			}
			if err := rt.SetRegion(r.URL.Query().Get("name"), r.URL.Query().Get("url")); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}),
		"/failover": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			switch r.Method {
			case http.MethodPut:
				if err := rt.Fail(q.Get("from"), q.Get("to")); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
			case http.MethodDelete:
				rt.Restore(q.Get("from"))
			default:
				http.Error(w, "router: PUT or DELETE", http.StatusMethodNotAllowed)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}),
		"/router": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(rt.Served())
		}),
	}
}
