package deploy

// Checks of kubernetes/*.yaml against kubernetes/idemcheck.yaml.

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// kubectlCall is one kubectl invocation of a control command.
type kubectlCall struct {
	action string
	args   []string // after "kubectl"
}

// kubectlCalls splits the control commands into kubectl invocations: an
// argv, or each `&&` part of an `sh -c` script.
func kubectlCalls(p *problems, actions map[string][]string) []kubectlCall {
	var out []kubectlCall
	for action, argv := range actions {
		parts := [][]string{argv}
		if len(argv) == 3 && argv[0] == "sh" && argv[1] == "-c" {
			parts = nil
			for _, s := range strings.Split(argv[2], "&&") {
				parts = append(parts, strings.Fields(s))
			}
		}
		for _, a := range parts {
			if len(a) == 0 || a[0] != "kubectl" {
				p.bad(kubeCfgFile, "target.control."+action, "%q is not a kubectl command", a)
				continue
			}
			out = append(out, kubectlCall{action, a[1:]})
		}
	}
	return out
}

// checkKubeControl: the commands act on the StatefulSet's pods, in the
// namespace, and the Role grants exactly what they need.
func checkKubeControl(ex *examples, p *problems) {
	cfg, ns := ex.kubeCfg, ex.kust.Namespace
	ctl := cfg.Target.Control
	if ctl == nil || len(cfg.Target.BaseURLs) != 2 {
		p.bad(kubeCfgFile, "target.control", "two instances with kill and restart are needed for A3 (and pause for A4)")
		return
	}
	ss := find(ex.kube, "StatefulSet", "pay")
	if ss == nil {
		p.bad(kubeDir, "StatefulSet/pay", "missing")
		return
	}
	for i, b := range cfg.Target.BaseURLs {
		want := fmt.Sprintf("%s-%d", ss.Metadata.Name, i)
		if h, _, _ := hostPort(b); ctl.Instances[i] != want || h != want+"."+ss.Spec.ServiceName {
			p.bad(kubeCfgFile, fmt.Sprintf("target.control.instances[%d]", i), "%q with base URL %s; the StatefulSet's pod %d is %s at %s.%s", ctl.Instances[i], b, i, want, want, ss.Spec.ServiceName)
		}
	}
	if svc := find(ex.kube, "Service", ss.Spec.ServiceName); svc == nil || svc.Spec.ClusterIP != "None" || !svc.Spec.PublishNotReadyAddresses {
		p.bad(ss.file, "StatefulSet/pay.spec.serviceName", "%q must be a headless Service publishing not-ready addresses (a frozen pod must keep its name)", ss.Spec.ServiceName)
	}
	// need is resource -> verb -> the names it is needed on ("" = any).
	need := map[string]map[string][]string{}
	add := func(res, verb string, byName bool) {
		if need[res] == nil {
			need[res] = map[string][]string{}
		}
		if byName {
			need[res][verb] = append(need[res][verb], ctl.Instances...)
		} else {
			need[res][verb] = append(need[res][verb], "")
		}
	}
	var waits time.Duration
	actions := map[string][]string{"kill": ctl.Kill, "pause": ctl.Pause, "resume": ctl.Resume, "restart": ctl.Restart}
	for _, k := range kubectlCalls(p, actions) {
		f := "target.control." + k.action
		if len(k.args) < 3 || k.args[0] != "-n" || k.args[1] != ns {
			p.bad(kubeCfgFile, f, "%q does not start with -n %s", k.args, ns)
			continue
		}
		verb, rest := k.args[2], k.args[3:]
		switch {
		case verb == "delete" && len(rest) >= 2 && rest[0] == "pod" && rest[1] == "${INSTANCE}" &&
			slices.Contains(rest, "--force") && slices.Contains(rest, "--grace-period=0") && k.action == "kill":
			add("pods", "delete", true)
			for _, v := range []string{"get", "list", "watch"} { // delete waits for the pod to go
				add("pods", v, false)
			}
		case verb == "exec" && len(rest) >= 7 && rest[0] == "${INSTANCE}" && rest[1] == "-c" && rest[3] == "--" &&
			rest[4] == "pkill" && rest[6] == "-x" && (k.action == "pause" && rest[5] == "-STOP" || k.action == "resume" && rest[5] == "-CONT"):
			if !slices.ContainsFunc(ss.Spec.Template.Spec.Containers, func(c container) bool { return c.Name == rest[2] }) {
				p.bad(kubeCfgFile, f, "container %q is not in StatefulSet/pay", rest[2])
			}
			if proc := rest[7]; !strings.HasSuffix(imageEntrypoint(ex, "idemcheck-example/payments:kind"), "/"+proc+`"]`) {
				p.bad(kubeCfgFile, f, "pkill -x %s: the service's process is %s", proc, imageEntrypoint(ex, "idemcheck-example/payments:kind"))
			}
			// SIGSTOP to a namespace's PID 1 is dropped by the kernel.
			img := "idemcheck-example/payments:kind"
			if !strings.HasPrefix(imageEntrypoint(ex, img), `ENTRYPOINT ["/usr/bin/tini", "--",`) || !slices.ContainsFunc(ex.dockerfiles["examples/deploy/Dockerfile"].chain(imageTarget(ex, img)), func(l string) bool { return strings.Contains(l, " procps") }) {
				p.bad(kubeCfgFile, f, "needs %s to run the service under tini, with procps's pkill", img)
			}
			add("pods/exec", "create", true)
			add("pods/exec", "get", true)
			add("pods", "get", false)
		case verb == "wait" && len(rest) >= 2 && k.action == "restart" && slices.Contains(rest, "pod/${INSTANCE}"):
			for _, v := range []string{"get", "list", "watch"} {
				add("pods", v, false)
			}
			if t, ok := argValue(rest, "--timeout"); ok {
				d, err := time.ParseDuration(t)
				if err != nil {
					p.bad(kubeCfgFile, f, "--timeout=%s: %v", t, err)
				}
				waits += d
			} else {
				p.bad(kubeCfgFile, f, "kubectl wait without --timeout waits 30 s")
			}
		default:
			p.bad(kubeCfgFile, f, "%q: not a command these checks know for %s", k.args, k.action)
		}
	}
	if waits > ctl.TimeoutD() {
		p.bad(kubeCfgFile, "target.control.restart", "its waits add up to %s, past target.control.timeout %s", waits, ctl.TimeoutD())
	}
	checkRole(ex, p, need)
}

// checkRole: the Role bound to the Job's ServiceAccount grants each needed
// verb, on the instances' names where one is needed by name, and nothing else.
func checkRole(ex *examples, p *problems, need map[string]map[string][]string) {
	job := find(ex.kube, "Job", "idemcheck")
	var role *kObj
	for _, rb := range ex.kube {
		if rb.Kind == "RoleBinding" && job != nil && slices.ContainsFunc(rb.Subjects, func(s struct {
			Kind      string `yaml:"kind"`
			Name      string `yaml:"name"`
			Namespace string `yaml:"namespace"`
		}) bool {
			return s.Kind == "ServiceAccount" && s.Name == job.Spec.Template.Spec.ServiceAccountName && s.Namespace == ex.kust.Namespace
		}) && rb.RoleRef.Kind == "Role" {
			role = find(ex.kube, "Role", rb.RoleRef.Name)
		}
	}
	if role == nil {
		p.bad(kubeDir+"/rbac.yaml", "RoleBinding", "no Role is bound to the Job's ServiceAccount")
		return
	}
	f := "Role/" + role.Metadata.Name
	granted := map[string]map[string][]string{}
	for i, r := range role.Rules {
		rf := fmt.Sprintf("%s.rules[%d]", f, i)
		if !slices.Equal(r.APIGroups, []string{""}) {
			p.bad(role.file, rf+".apiGroups", "%q: pods are in the core group \"\" only", r.APIGroups)
		}
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if res == "*" || v == "*" || slices.Contains(r.ResourceNames, "*") {
					p.bad(role.file, rf, "a wildcard")
				}
				if granted[res] == nil {
					granted[res] = map[string][]string{}
				}
				names := r.ResourceNames
				if len(names) == 0 {
					names = []string{""}
				}
				granted[res][v] = append(granted[res][v], names...)
			}
		}
	}
	instances := ex.kubeCfg.Target.Control.Instances
	for res, verbs := range need {
		for v, names := range verbs {
			g := granted[res][v]
			for _, n := range names {
				if !slices.Contains(g, n) && !slices.Contains(g, "") {
					p.bad(role.file, f, "does not grant %s on %s %q, which target.control needs", v, res, n)
				}
			}
		}
	}
	for res, verbs := range granted {
		for v, names := range verbs {
			want := need[res][v]
			if len(want) == 0 {
				p.bad(role.file, f, "grants %s on %s, which no control command uses", v, res)
				continue
			}
			for _, n := range names {
				if n != "" && !slices.Contains(instances, n) {
					p.bad(role.file, f, "grants %s on %s %q, not an instance", v, res, n)
				}
				if n == "" && !slices.Contains(want, "") {
					p.bad(role.file, f, "grants %s on every %s; it is needed on %v only", v, res, instances)
				}
			}
		}
	}
}
