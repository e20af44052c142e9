package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp"
)

// proxy checks the toxiproxy section: the server's URL, each link's name,
// upstream and listen address.
func (v *validator) proxy() {
	e := &v.c.Effects
	if v.c.Proxy != nil {
		if a := v.c.Proxy.API; a != "" {
			if u, err := url.Parse(a); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				v.bad("toxiproxy.api", "%q must be the URL of a toxiproxy-server's API, like http://toxiproxy:8474", a)
			}
		}
		if b := v.c.Proxy.Bursts; b != "" && b != "on" && b != "off" {
			v.bad("toxiproxy.bursts", "%q must be on or off", b)
		}
		for i, l := range v.c.Proxy.Links {
			f := fmt.Sprintf("toxiproxy.links[%d]", i)
			if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`).MatchString(l.Name) {
				v.bad(f+".name", "%q must be a letter followed by letters, digits or _", l.Name)
			}
			switch {
			case l.Upstream == "fakepsp" && !e.HasPSP():
				v.bad(f+".upstream", "fakepsp needs effects.fakepsp: true or effects.fakepsp_url")
			case l.Upstream != "fakepsp" && !strings.Contains(l.Upstream, ":"):
				v.bad(f+".upstream", "%q must be host:port (or fakepsp)", l.Upstream)
			}
			if l.Listen != "" {
				host, _, err := net.SplitHostPort(l.Listen)
				switch {
				case err != nil:
					v.bad(f+".listen", "%q must be host:port", l.Listen)
				case v.c.Proxy.API == "" && !fakepsp.IsLoopback(host):
					v.bad(f+".listen", "%q: the embedded Toxiproxy listens on loopback only; a wider address needs toxiproxy.api (your own toxiproxy-server)", l.Listen)
				}
			}
		}
	}
}
