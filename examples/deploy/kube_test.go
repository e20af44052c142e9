package deploy

// Checks of kubernetes/*.yaml against kubernetes/idemcheck.yaml.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const kubeCfgFile = kubeDir + "/idemcheck.yaml"

// workload is a pod template with the object that owns it.
type workload struct {
	obj    *kObj
	labels map[string]string
	pod    podSpec
}

func find(objs []kObj, kind, name string) *kObj {
	for i := range objs {
		if objs[i].Kind == kind && objs[i].Metadata.Name == name {
			return &objs[i]
		}
	}
	return nil
}

func checkKube(ex *examples, p *problems) {
	cfg := ex.kubeCfg
	ns := ex.kust.Namespace
	var loads []workload
	ports := map[*kObj]map[string]int{} // workload -> container port name -> number
	w := wiring{file: kubeDir, cfgFile: kubeCfgFile, cfg: cfg, serving: map[string]map[string]string{},
		migrate: map[string]map[string]string{}}
	for i := range ex.kube {
		o := &ex.kube[i]
		f := o.Kind + "/" + o.Metadata.Name
		switch {
		case o.Kind == "Namespace" && o.Metadata.Name != ns:
			p.bad(o.file, f, "the kustomization's namespace is %q", ns)
		case o.Kind != "Namespace" && o.Metadata.Namespace != ns:
			p.bad(o.file, f+".metadata.namespace", "%q, the kustomization's is %q", o.Metadata.Namespace, ns)
		}
		if !slices.Contains([]string{"Deployment", "StatefulSet", "Job"}, o.Kind) {
			continue
		}
		wl := workload{obj: o, labels: o.Spec.Template.Metadata.Labels, pod: o.Spec.Template.Spec}
		loads = append(loads, wl)
		ports[o] = map[string]int{}
		replicas := o.Spec.Replicas
		if o.Kind == "Job" {
			replicas = 1
		}
		for _, c := range append(append([]container{}, wl.pod.InitContainers...), wl.pod.Containers...) {
			cf := fmt.Sprintf("%s.containers[%s]", f, c.Name)
			checkKubeImage(ex, p, o.file, cf, c)
			args := append(append([]string{}, c.Command...), c.Args...)
			if len(c.Command) == 0 {
				args = c.Args
			}
			listening := listens(p, o.file, cf+".args", c.Image, args, c.env(), cfg.Proxy.Links)
			var declared []int
			for _, cp := range c.Ports {
				declared = append(declared, cp.ContainerPort)
				ports[o][cp.Name] = cp.ContainerPort
				ports[o][strconv.Itoa(cp.ContainerPort)] = cp.ContainerPort
			}
			slices.Sort(listening)
			slices.Sort(declared)
			if !slices.Equal(listening, declared) {
				p.bad(o.file, cf+".ports", "declares %v; the container listens on %v", declared, listening)
			}
			if rp := c.ReadinessProbe; rp != nil {
				var port any
				if rp.HTTPGet != nil {
					port = rp.HTTPGet.Port
				} else if rp.TCPSocket != nil {
					port = rp.TCPSocket.Port
				}
				if port != nil {
					if _, ok := ports[o][fmt.Sprint(port)]; !ok {
						p.bad(o.file, cf+".readinessProbe", "port %v is not one the container declares", port)
					}
				}
			}
			instances := make([]string, 0, replicas)
			for r := range replicas {
				instances = append(instances, fmt.Sprintf("%s-%d", o.Metadata.Name, r))
			}
			switch role(c.Image, args) {
			case roleService:
				for _, in := range instances {
					w.serving[fmt.Sprintf("%s(%s).env", cf, in)] = c.env()
				}
			case roleMigrate:
				w.migrate[cf+".env"] = c.env()
			case roleFakePSP:
				w.pspArgs = args
			case rolePostgres:
				w.pgEnv, w.pgField = c.env(), cf+".env"
			case roleIdemcheck:
				checkKubeJob(ex, p, o, c)
			case roleToxiproxy:
			default:
				if o.Kind != "Job" || c.Name != "wait" {
					p.bad(o.file, cf, "a container the checks do not know (image %q)", c.Image)
				}
			}
		}
	}
	w.pgEnv = nonNil(w.pgEnv)
	checkWiring(ex, w, p)
	// Every address is a Service port that leads to a declared container
	// port, or a StatefulSet pod by name under its headless Service.
	resolve := func(file, field, addr string) {
		h, n, ok := hostPort(addr)
		if !ok {
			p.bad(file, field, "%q names no host:port", addr)
			return
		}
		pod, svcName, isPod := strings.Cut(h, ".")
		if !isPod {
			svcName = h
		}
		svc := find(ex.kube, "Service", svcName)
		if svc == nil {
			p.bad(file, field, "%s: no Service %q", addr, svcName)
			return
		}
		if isPod {
			ss := find(ex.kube, "StatefulSet", strings.TrimRight(strings.TrimRight(pod, "0123456789"), "-"))
			ord, err := strconv.Atoi(pod[strings.LastIndex(pod, "-")+1:])
			if ss == nil || err != nil || ord >= ss.Spec.Replicas || ss.Spec.ServiceName != svcName || svc.Spec.ClusterIP != "None" {
				p.bad(file, field, "%s: %s is no pod of a StatefulSet whose serviceName is the headless Service %s", addr, pod, svcName)
				return
			}
			if !slices.Contains(mapValues(ports[ss]), n) {
				p.bad(file, field, "%s: the pod declares no port %d", addr, n)
			}
			return
		}
		for _, sp := range svc.Spec.Ports {
			if sp.Port != n {
				continue
			}
			for _, wl := range loads {
				if selects(svc.Spec.Selector, wl.labels) {
					if _, ok := ports[wl.obj][fmt.Sprint(sp.TargetPort)]; ok {
						return
					}
				}
			}
			p.bad(file, field, "%s: Service %s port %d targets %v, which no pod it selects declares", addr, svcName, n, sp.TargetPort)
			return
		}
		p.bad(file, field, "%s: Service %s has no port %d", addr, svcName, n)
	}
	for _, wl := range loads {
		for _, c := range append(append([]container{}, wl.pod.InitContainers...), wl.pod.Containers...) {
			for k, v := range c.env() {
				if strings.Contains(v, "://") {
					resolve(wl.obj.file, fmt.Sprintf("%s/%s.containers[%s].env.%s", wl.obj.Kind, wl.obj.Metadata.Name, c.Name, k), v)
				}
			}
		}
	}
	for field, a := range configAddrs(cfg) {
		resolve(kubeCfgFile, field, a)
	}
	checkKubeControl(ex, p)
	checkKustomization(ex, p)
}

func selects(sel map[string]any, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != fmt.Sprint(v) {
			return false
		}
	}
	return len(sel) > 0
}

func mapValues(m map[string]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// checkKubeImage: a public image is pinned; a local one is pulled Never
// (kind-loaded) and built by the workflow.
func checkKubeImage(ex *examples, p *problems, file, field string, c container) {
	built := workflowBuilds(ex)
	if _, ok := built[c.Image]; ok {
		if c.ImagePullPolicy != "Never" {
			p.bad(file, field+".imagePullPolicy", "%q: %s is loaded into kind, never pulled: say Never", c.ImagePullPolicy, c.Image)
		}
		return
	}
	if c.ImagePullPolicy == "Never" {
		p.bad(file, field+".image", "%s is pulled Never, but %s does not build it", c.Image, workflowYML)
	}
	if why := unpinned(c.Image); why != "" {
		p.bad(file, field+".image", "%s", why)
	}
}

var waitFor = regexp.MustCompile(`for a in ([^;]+);`)

// checkKubeJob: the Job reads the generated config, its kubectl is in its
// image, and it waits for exactly the addresses the config names.
func checkKubeJob(ex *examples, p *problems, o *kObj, c container) {
	f := "Job/" + o.Metadata.Name
	cfgPath, _ := argValue(c.Args, "--config")
	var gen string
	for _, g := range ex.kust.ConfigMapGenerator {
		if slices.Contains(g.Files, path.Base(cfgPath)) && path.Base(cfgPath) == "idemcheck.yaml" {
			gen = g.Name
		}
	}
	ok := false
	for _, v := range o.Spec.Template.Spec.Volumes {
		for _, m := range c.VolumeMounts {
			if v.ConfigMap != nil && v.ConfigMap.Name == gen && gen != "" && m.Name == v.Name && m.MountPath == path.Dir(cfgPath) {
				ok = true
			}
		}
	}
	if !ok {
		p.bad(o.file, f+".args", "--config %q is not the ConfigMap generated from kubernetes/idemcheck.yaml mounted at its directory", cfgPath)
	}
	if sa := o.Spec.Template.Spec.ServiceAccountName; find(ex.kube, "ServiceAccount", sa) == nil {
		p.bad(o.file, f+".serviceAccountName", "%q: no such ServiceAccount", sa)
	}
	if !slices.Contains(ex.dockerfiles["examples/deploy/Dockerfile"].chain(imageTarget(ex, c.Image)), "COPY --from=kubectl /bin/kubectl /usr/local/bin/kubectl") {
		p.bad(o.file, f+".image", "%s has no kubectl (examples/deploy/Dockerfile)", c.Image)
	}
	want := map[string]bool{}
	for _, a := range configAddrs(ex.kubeCfg) {
		if h, n, _ := hostPort(a); strings.Contains(a, "://") { // not the link's upstream: Toxiproxy dials it
			want[fmt.Sprintf("%s:%d", h, n)] = true
		}
	}
	var got []string
	for _, ic := range o.Spec.Template.Spec.InitContainers {
		if m := waitFor.FindStringSubmatch(strings.Join(ic.Args, " ")); m != nil {
			got = strings.Fields(m[1])
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, keys(want)) {
		p.bad(o.file, f+".initContainers", "waits for %v; idemcheck.yaml connects to %v", got, keys(want))
	}
}

// checkKustomization: every manifest and generated file exists and is listed.
func checkKustomization(ex *examples, p *problems) {
	f := kubeDir + "/kustomization.yaml"
	listed := map[string]bool{"kustomization.yaml": true}
	for _, r := range ex.kust.Resources {
		listed[r] = true
	}
	for _, g := range ex.kust.ConfigMapGenerator {
		for _, file := range g.Files {
			listed[file] = true
			if _, err := os.Stat(filepath.Join(kubeDir, file)); err != nil {
				p.bad(f, "configMapGenerator."+g.Name, "%v", err)
			}
		}
	}
	all, _ := filepath.Glob(filepath.Join(kubeDir, "*.yaml"))
	for _, a := range all {
		if !listed[filepath.Base(a)] {
			p.bad(f, "resources", "%s is not listed: `kubectl apply -k` would skip it", filepath.Base(a))
		}
	}
	if find(ex.kube, "Namespace", ex.kust.Namespace) == nil {
		p.bad(f, "namespace", "%q is not created by any manifest", ex.kust.Namespace)
	}
}
