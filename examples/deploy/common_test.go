package deploy

// Checks both deployments share: images, what each container listens on,
// the environment the service is given, and how the pieces are wired.

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
)

// problems collects what is wrong, each naming a file and a field.
type problems []string

func (p *problems) bad(file, field, format string, args ...any) {
	*p = append(*p, fmt.Sprintf("%s: %s: %s", file, field, fmt.Sprintf(format, args...)))
}

// unpinned says why an image is not a public image pinned by tag ("" when it is).
func unpinned(img string) string {
	if strings.Contains(img, "@sha256:") {
		return ""
	}
	name := img[strings.LastIndex(img, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	switch {
	case img == "":
		return "no image"
	case !ok || tag == "":
		return fmt.Sprintf("%q has no tag (an untagged image is :latest)", img)
	case tag == "latest":
		return fmt.Sprintf("%q is :latest, not pinned", img)
	}
	return ""
}

// checkDockerfiles: every image a Dockerfile builds FROM or copies from is pinned.
func checkDockerfiles(ex *examples, p *problems) {
	for _, df := range ex.dockerfiles {
		if len(df.images) == 0 {
			p.bad(df.path, "FROM", "no base image found")
		}
		for _, img := range df.images {
			if why := unpinned(img); why != "" {
				p.bad(df.path, "FROM/COPY --from", "%s", why)
			}
		}
	}
}

// checkBuild: a build names a Dockerfile that exists and, if given, a stage of it.
func checkBuild(ex *examples, p *problems, file, field, dockerfilePath, target string) {
	df, ok := ex.dockerfiles[dockerfilePath]
	if !ok {
		p.bad(file, field, "Dockerfile %q is not one of this repository's (%v)", dockerfilePath, keys(ex.dockerfiles))
		return
	}
	if _, ok := df.stages[target]; target != "" && !ok {
		p.bad(file, field, "target %q is not a stage of %s", target, dockerfilePath)
	}
}

// hostPort is the host and port an address names: a URL (http, postgres)
// or a bare host:port.
func hostPort(s string) (string, int, bool) {
	hp := s
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		hp = u.Host
		if u.Port() == "" {
			hp += ":" + map[string]string{"http": "80", "https": "443", "postgres": "5432"}[u.Scheme]
		}
	}
	h, ps, err := net.SplitHostPort(hp)
	n, err2 := strconv.Atoi(ps)
	if err != nil || err2 != nil || h == "" {
		return "", 0, false
	}
	return h, n, true
}

// argValue is the value of a flag in an argv: "-port=8474", "--listen X".
func argValue(args []string, flag string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
		if a == flag && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// A container's role, told from its image and arguments.
const (
	rolePostgres  = "postgres"
	roleToxiproxy = "toxiproxy"
	roleFakePSP   = "fakepsp"
	roleService   = "service"
	roleMigrate   = "migrate"
	roleIdemcheck = "idemcheck"
)

func role(image string, args []string) string {
	switch {
	case strings.HasPrefix(image, "postgres:"):
		return rolePostgres
	case strings.HasPrefix(image, "ghcr.io/shopify/toxiproxy:"):
		return roleToxiproxy
	case len(args) > 0 && args[0] == "psp":
		return roleFakePSP
	case len(args) > 0 && args[0] == "run":
		return roleIdemcheck
	case strings.Contains(image, "payments") && slices.Contains(args, "-migrate"):
		return roleMigrate
	case strings.Contains(image, "payments"):
		return roleService
	}
	return ""
}

// listens is the ports a container listens on beyond loopback, from its
// arguments and environment as the program reads them; links are the
// Toxiproxy links idemcheck creates on a toxiproxy server.
func listens(p *problems, file, field, image string, args []string, env map[string]string, links []config.Link) []int {
	wide := func(what, host string) bool {
		if host != "0.0.0.0" && host != "" && host != "::" {
			p.bad(file, field, "%s listens on %q: unreachable from the other containers", what, host)
			return false
		}
		return true
	}
	port := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch role(image, args) {
	case rolePostgres:
		return []int{5432}
	case roleToxiproxy:
		h, _ := argValue(args, "-host")
		ps, ok := argValue(args, "-port")
		if !ok {
			ps = "8474"
		}
		if !slices.Contains(args, "-proxy-metrics") {
			p.bad(file, field, "toxiproxy-server without -proxy-metrics serves no /metrics")
		}
		if !wide("toxiproxy's API", h) {
			return nil
		}
		out := []int{port(ps)}
		for _, l := range links {
			h, lp, err := net.SplitHostPort(l.Listen)
			if err == nil && wide("link "+l.Name, h) {
				out = append(out, port(lp))
			}
		}
		return out
	case roleFakePSP:
		l, _ := argValue(args, "--listen")
		h, lp, err := net.SplitHostPort(l)
		if err != nil || !wide("fakepsp", h) || !slices.Contains(args, "--allow-remote") {
			p.bad(file, field, "fakepsp needs --listen 0.0.0.0:PORT and --allow-remote to serve other containers")
			return nil
		}
		return []int{port(lp)}
	case roleService:
		h, _ := argValue(args, "-listen-host")
		if h == "" {
			h = "127.0.0.1" // the service's default (cmd/payments)
		}
		ps := env["PORT"]
		if ps == "" {
			ps = "8080"
		}
		if !wide("the service", h) {
			return nil
		}
		return []int{port(ps)}
	}
	return nil
}

// wiring is one deployment's pieces as the service and idemcheck see them.
type wiring struct {
	file, cfgFile string
	cfg           *config.Config
	serving       map[string]map[string]string // instance's field -> its env
	migrate       map[string]map[string]string
	pspArgs       []string
	pgEnv         map[string]string
	pgField       string
}

// checkWiring: the env given to the service is what it reads, and names
// what idemcheck's config names: the DB through the link's listen port on
// the Toxiproxy server, the migration straight on the link's upstream, the
// fakepsp idemcheck reads, with fakepsp's key, on the port idemcheck polls.
func checkWiring(ex *examples, w wiring, p *problems) {
	if len(w.serving) != len(w.cfg.Target.BaseURLs) {
		p.bad(w.file, "service instances", "%d, for %d base URLs in %s", len(w.serving), len(w.cfg.Target.BaseURLs), w.cfgFile)
	}
	if len(w.migrate) == 0 {
		p.bad(w.file, "migrate", "nothing creates the service's table")
	}
	var db *config.Link
	if w.cfg.Proxy != nil {
		for i := range w.cfg.Proxy.Links {
			if w.cfg.Proxy.Links[i].Name == "DB" {
				db = &w.cfg.Proxy.Links[i]
			}
		}
	}
	if db == nil || w.cfg.Proxy.API == "" {
		p.bad(w.cfgFile, "toxiproxy", "no link DB on a toxiproxy.api server")
		return
	}
	tpHost, _, _ := hostPort(w.cfg.Proxy.API)
	_, listenPort, _ := hostPort(db.Listen)
	secret, _ := argValue(w.pspArgs, "--secret-key")
	check := func(all map[string]map[string]string, want map[string]string) {
		for field, env := range all {
			for k := range env {
				if !ex.serviceEnv[k] {
					p.bad(w.file, field+"."+k, "the service does not read %s (%s reads %v)", k, serviceMain, keys(ex.serviceEnv))
				}
			}
			for k, v := range want {
				if env[k] != v {
					p.bad(w.file, field+"."+k, "%q, want %q", env[k], v)
				}
			}
		}
	}
	for field, env := range w.serving {
		for k := range ex.serviceEnv {
			if _, ok := env[k]; !ok {
				p.bad(w.file, field, "does not set %s, which the service reads", k)
			}
		}
		if h, n, _ := hostPort(env["DATABASE_URL"]); h != tpHost || n != listenPort {
			p.bad(w.file, field+".DATABASE_URL", "goes to %s:%d, not through the link DB (%s:%d, %s toxiproxy)", h, n, tpHost, listenPort, w.cfgFile)
		}
		checkDSN(p, w.file, field+".DATABASE_URL", env["DATABASE_URL"], w.pgEnv, w.pgField)
		for i, b := range w.cfg.Target.BaseURLs {
			if _, n, _ := hostPort(b); strconv.Itoa(n) != env["PORT"] {
				p.bad(w.cfgFile, fmt.Sprintf("target.base_urls[%d]", i), "port %d, the service listens on PORT=%s (%s)", n, env["PORT"], field)
			}
		}
	}
	check(w.serving, map[string]string{"PSP_URL": w.cfg.Effects.FakePSPURL, "PSP_KEY": secret})
	for field, env := range w.migrate {
		if h, n, _ := hostPort(env["DATABASE_URL"]); fmt.Sprintf("%s:%d", h, n) != db.Upstream {
			p.bad(w.file, field+".DATABASE_URL", "migrates %s:%d, not the link's upstream %s", h, n, db.Upstream)
		}
		checkDSN(p, w.file, field+".DATABASE_URL", env["DATABASE_URL"], w.pgEnv, w.pgField)
	}
	check(w.migrate, nil)
	if !strings.HasPrefix(secret, "sk_test_") {
		p.bad(w.file, "fakepsp --secret-key", "%q is not an sk_test_ key", secret)
	}
}

// checkDSN: a DATABASE_URL's user, password and database are the ones the
// postgres image is told to create; it reads no other variable here.
func checkDSN(p *problems, file, field, dsn string, pg map[string]string, pgField string) {
	for k := range pg {
		if !slices.Contains([]string{"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}, k) {
			p.bad(file, pgField+"."+k, "not a variable of the postgres image used here")
		}
	}
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		p.bad(file, field, "%q is not a postgres:// URL with a user", dsn)
		return
	}
	pw, _ := u.User.Password()
	if u.User.Username() != pg["POSTGRES_USER"] || pw != pg["POSTGRES_PASSWORD"] || strings.TrimPrefix(u.Path, "/") != pg["POSTGRES_DB"] {
		p.bad(file, field, "user %q, database %q: Postgres creates user %q, database %q with its password", u.User.Username(), path.Base(u.Path), pg["POSTGRES_USER"], pg["POSTGRES_DB"])
	}
}

// configAddrs is every address idemcheck's config connects to.
func configAddrs(c *config.Config) map[string]string {
	m := map[string]string{"effects.fakepsp_url": c.Effects.FakePSPURL}
	for i, b := range c.Target.BaseURLs {
		m[fmt.Sprintf("target.base_urls[%d]", i)] = b
	}
	if c.Proxy != nil {
		m["toxiproxy.api"] = c.Proxy.API
		for i, l := range c.Proxy.Links {
			m[fmt.Sprintf("toxiproxy.links[%d].upstream", i)] = l.Upstream
		}
	}
	return m
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
