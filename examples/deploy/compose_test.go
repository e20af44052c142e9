package deploy

// Checks of compose/compose.yaml against compose/idemcheck.yaml.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const composeYAML = composeDir + "/compose.yaml"

var devTCP = regexp.MustCompile(`/dev/tcp/([^/\s"]+)/(\d+)`)

func checkCompose(ex *examples, p *problems) {
	c, cfg, cfgFile := ex.compose, ex.composeCfg, composeDir+"/idemcheck.yaml"
	if len(c.Services) == 0 {
		p.bad(composeYAML, "services", "none")
		return
	}
	var links = cfg.Proxy.Links
	ports := map[string][]int{} // service name and container name -> ports
	w := wiring{file: composeYAML, cfgFile: cfgFile, cfg: cfg, serving: map[string]map[string]string{},
		migrate: map[string]map[string]string{}}
	for name, s := range c.Services {
		f := "services." + name
		// Images: built here, or public and pinned.
		if s.Build != nil {
			df := path.Clean(path.Join(composeDir, s.Build.Context, s.Build.Dockerfile))
			if rel, err := filepath.Rel(repoRoot, df); err == nil {
				df = filepath.ToSlash(rel)
			}
			checkBuild(ex, p, composeYAML, f+".build", df, s.Build.Target)
			if s.Image != "" && strings.HasSuffix(s.Image, ":latest") {
				p.bad(composeYAML, f+".image", "a built image tagged latest")
			}
		} else if why := unpinned(s.Image); why != "" {
			p.bad(composeYAML, f+".image", "%s", why)
		}
		r := role(s.Image, s.Command)
		ps := listens(p, composeYAML, f+".command", s.Image, s.Command, s.Environment, links)
		ports[name] = ps
		if s.ContainerName != "" {
			ports[s.ContainerName] = ps
		}
		switch r {
		case roleService:
			w.serving[f+".environment"] = s.Environment
		case roleMigrate:
			w.migrate[f+".environment"] = s.Environment
		case roleFakePSP:
			w.pspArgs = s.Command
		case rolePostgres:
			w.pgEnv, w.pgField = s.Environment, f+".environment"
		case roleIdemcheck:
			checkComposeIdemcheck(ex, p, name, s)
		case roleToxiproxy:
		default:
			p.bad(composeYAML, f, "a service the checks do not know (image %q)", s.Image)
		}
		if s.Healthcheck != nil {
			for _, m := range devTCP.FindAllStringSubmatch(strings.Join(s.Healthcheck.Test, " "), -1) {
				if !slices.Contains(ps, atoi(m[2])) {
					p.bad(composeYAML, f+".healthcheck", "probes port %s; the service listens on %v", m[2], ps)
				}
			}
		}
		for dep, d := range s.DependsOn {
			ds, ok := c.Services[dep]
			switch {
			case !ok:
				p.bad(composeYAML, f+".depends_on."+dep, "no such service")
			case d.Condition == "service_healthy" && ds.Healthcheck == nil:
				p.bad(composeYAML, f+".depends_on."+dep, "service_healthy, but %s has no healthcheck", dep)
			case d.Condition == "service_completed_successfully" && role(ds.Image, ds.Command) != roleMigrate:
				p.bad(composeYAML, f+".depends_on."+dep, "waits for %s to exit, but it is a server", dep)
			}
		}
	}
	if len(w.serving) > 0 {
		w.pgEnv = nonNil(w.pgEnv)
		checkWiring(ex, w, p)
	}
	// Every address anything connects to is a service listening there.
	resolve := func(field, addr string) {
		h, n, ok := hostPort(addr)
		if !ok {
			p.bad(composeYAML, field, "%q names no host:port", addr)
			return
		}
		ps, ok := ports[h]
		if !ok {
			p.bad(composeYAML, field, "%s: no service or container of that name", addr)
		} else if !slices.Contains(ps, n) {
			p.bad(composeYAML, field, "%s: %s listens on %v, not %d", addr, h, ps, n)
		}
	}
	for name, s := range c.Services {
		for k, v := range s.Environment {
			if strings.Contains(v, "://") {
				resolve("services."+name+".environment."+k, v)
			}
		}
	}
	for field, a := range configAddrs(cfg) {
		resolve(cfgFile+" "+field, a)
	}
	checkComposeControl(ex, p)
}

// checkComposeIdemcheck: the run container reads the config it is given
// and can reach the Docker daemon with a docker CLI.
func checkComposeIdemcheck(ex *examples, p *problems, name string, s composeService) {
	f := "services." + name
	cfgPath, _ := argValue(s.Command, "--config")
	mounted, sock := false, false
	for i, v := range s.Volumes {
		src, dst, _ := strings.Cut(v, ":")
		dst, _, _ = strings.Cut(dst, ":")
		switch {
		case src == "/var/run/docker.sock":
			sock = dst == "/var/run/docker.sock"
		case filepath.IsAbs(src):
			p.bad(composeYAML, fmt.Sprintf("%s.volumes[%d]", f, i), "host path %s is not in the repository", src)
		default:
			if _, err := os.Stat(filepath.Join(composeDir, src)); err != nil {
				p.bad(composeYAML, fmt.Sprintf("%s.volumes[%d]", f, i), "%v", err)
			}
			if dst == cfgPath && filepath.Clean(filepath.Join(composeDir, src)) == filepath.Join(composeDir, "idemcheck.yaml") {
				mounted = true
			}
		}
	}
	if !mounted {
		p.bad(composeYAML, f+".command", "--config %q is not compose/idemcheck.yaml mounted there", cfgPath)
	}
	if !sock {
		p.bad(composeYAML, f+".volumes", "no /var/run/docker.sock: target.control's docker commands cannot reach the daemon")
	}
	if s.Build == nil || !slices.Contains(ex.dockerfiles["examples/deploy/Dockerfile"].chain(s.Build.Target), "COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker") {
		p.bad(composeYAML, f+".build.target", "its image has no docker CLI (examples/deploy/Dockerfile)")
	}
	for _, dep := range []string{"pay-1", "pay-2", "fakepsp", "toxiproxy"} {
		if s.DependsOn[dep].Condition != "service_healthy" {
			p.bad(composeYAML, f+".depends_on."+dep, "the run must wait until %s is healthy: idemcheck waits 2 s for an instance it did not start", dep)
		}
	}
}

// checkComposeControl: docker commands on the container of each base URL.
func checkComposeControl(ex *examples, p *problems) {
	cfg, file := ex.composeCfg, composeDir+"/idemcheck.yaml"
	ctl := cfg.Target.Control
	if ctl == nil || len(cfg.Target.BaseURLs) != 2 || !ctl.CanPause() {
		p.bad(file, "target.control", "two instances with kill, pause, resume and restart are needed for A3 and A4")
		return
	}
	for i, b := range cfg.Target.BaseURLs {
		h, _, _ := hostPort(b)
		s, ok := ex.compose.Services[h]
		if !ok || s.ContainerName != ctl.Instances[i] {
			p.bad(file, fmt.Sprintf("target.control.instances[%d]", i), "%q is not the container_name of service %q (%s), which serves %s", ctl.Instances[i], h, s.ContainerName, b)
		}
	}
	for action, want := range map[string][]string{"kill": ctl.Kill, "pause": ctl.Pause, "resume": ctl.Resume, "restart": ctl.Restart} {
		verb := map[string]string{"kill": "kill", "pause": "pause", "resume": "unpause", "restart": "start"}[action]
		if !slices.Equal(want, []string{"docker", verb, "${INSTANCE}"}) {
			p.bad(file, "target.control."+action, "%q, want [docker %s ${INSTANCE}]", want, verb)
		}
	}
}

func atoi(s string) int {
	var n int
	_, _ = fmt.Sscan(s, &n)
	return n
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
