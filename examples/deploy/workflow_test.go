package deploy

// Checks of ci/examples/kind.yml against the manifests and Dockerfiles.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

type imageBuild struct{ dockerfile, target string }

// workflowBuilds is every `docker build` of the workflow, by image tag.
func workflowBuilds(ex *examples) map[string]imageBuild {
	out := map[string]imageBuild{}
	for _, l := range runLines(ex) {
		a := strings.Fields(l)
		if len(a) < 2 || a[0] != "docker" || a[1] != "build" {
			continue
		}
		tag, _ := argValue(a, "-t")
		f, ok := argValue(a, "-f")
		if !ok {
			f = "Dockerfile"
		}
		target, _ := argValue(a, "--target")
		out[tag] = imageBuild{f, target}
	}
	return out
}

// runLines is every line of every run: script of the workflow.
func runLines(ex *examples) []string {
	var out []string
	for _, j := range ex.workflow.Jobs {
		for _, s := range j.Steps {
			for _, l := range strings.Split(s.Run, "\n") {
				out = append(out, strings.TrimSpace(l))
			}
		}
	}
	return out
}

func imageTarget(ex *examples, image string) string {
	b := workflowBuilds(ex)[image]
	if b.dockerfile != "examples/deploy/Dockerfile" {
		return ""
	}
	return b.target
}

// imageEntrypoint is the ENTRYPOINT line of a workflow-built image.
func imageEntrypoint(ex *examples, image string) string {
	b := workflowBuilds(ex)[image]
	df := ex.dockerfiles[b.dockerfile]
	if df == nil {
		return ""
	}
	ep := ""
	for _, l := range df.chain(b.target) {
		if strings.HasPrefix(l, "ENTRYPOINT ") {
			ep = l
		}
	}
	return ep
}

var (
	objRef     = regexp.MustCompile(`\b(job|statefulset|deployment)/([a-z0-9-]+)`)
	logsOf     = regexp.MustCompile(`logs job/([a-z0-9-]+) -c ([a-z0-9-]+)`)
	kubectlTag = regexp.MustCompile(`^registry\.k8s\.io/kubectl:v(\d+\.\d+)\.`)
	nodeTag    = regexp.MustCompile(`^kindest/node:v(\d+\.\d+)\.`)
)

func checkWorkflow(ex *examples, p *problems) {
	const f = workflowYML
	var cluster, node string
	var env map[string]string
	for _, j := range ex.workflow.Jobs {
		env = j.Env
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "helm/kind-action@") {
				cluster, node = s.With["cluster_name"], s.With["node_image"]
			}
		}
	}
	if cluster == "" {
		p.bad(f, "steps", "no helm/kind-action step with a cluster_name")
	}
	// kubectl in the Job's image within one minor of the cluster.
	var kubectlMinor string
	for _, img := range ex.dockerfiles["examples/deploy/Dockerfile"].images {
		if m := kubectlTag.FindStringSubmatch(img); m != nil {
			kubectlMinor = m[1]
		}
	}
	if m := nodeTag.FindStringSubmatch(node); m == nil || m[1] != kubectlMinor {
		p.bad(f, "kind-action.node_image", "%q: the Job's kubectl is v%s (examples/deploy/Dockerfile); pin a node of that minor", node, kubectlMinor)
	}
	builds := workflowBuilds(ex)
	if len(builds) == 0 {
		p.bad(f, "run", "no docker build")
	}
	for tag, b := range builds {
		checkBuild(ex, p, f, "docker build -t "+tag, b.dockerfile, b.target)
	}
	loaded := map[string]bool{}
	applied := false
	for _, l := range runLines(ex) {
		a := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "docker build") && a[len(a)-1] != ".":
			p.bad(f, "run", "%q: the build context must be the repository root (.)", l)
		case strings.HasPrefix(l, "kind load docker-image"):
			if n, _ := argValue(a, "--name"); n != cluster {
				p.bad(f, "run", "%q loads into cluster %q, not %q", l, n, cluster)
			}
			loaded[a[len(a)-1]] = true
		case strings.HasPrefix(l, "kubectl apply"):
			dir, ok := argValue(a, "-k")
			if _, err := os.Stat(filepath.Join(repoRoot, dir, "kustomization.yaml")); !ok || err != nil || filepath.Clean(filepath.Join(repoRoot, dir)) != filepath.Clean(filepath.Join(repoRoot, "examples/deploy", kubeDir)) {
				p.bad(f, "run", "%q does not apply examples/deploy/kubernetes with -k", l)
			}
			applied = true
		}
		for _, m := range objRef.FindAllStringSubmatch(l, -1) {
			kind := map[string]string{"job": "Job", "statefulset": "StatefulSet", "deployment": "Deployment"}[m[1]]
			if find(ex.kube, kind, m[2]) == nil {
				p.bad(f, "run", "%q names %s/%s, which no manifest defines", l, kind, m[2])
			}
		}
		if m := logsOf.FindStringSubmatch(l); m != nil {
			if j := find(ex.kube, "Job", m[1]); j == nil || !slices.ContainsFunc(append(append([]container{}, j.Spec.Template.Spec.InitContainers...), j.Spec.Template.Spec.Containers...), func(c container) bool { return c.Name == m[2] }) {
				p.bad(f, "run", "%q: Job %s has no container %s", l, m[1], m[2])
			}
		}
	}
	if !applied {
		p.bad(f, "run", "never applies the manifests")
	}
	if env["NS"] != ex.kust.Namespace {
		p.bad(f, "env.NS", "%q, the manifests' namespace is %q", env["NS"], ex.kust.Namespace)
	}
	used := map[string]bool{}
	for _, o := range ex.kube {
		for _, c := range append(append([]container{}, o.Spec.Template.Spec.InitContainers...), o.Spec.Template.Spec.Containers...) {
			if _, ok := builds[c.Image]; ok {
				used[c.Image] = true
			}
		}
	}
	for tag := range builds {
		if !loaded[tag] {
			p.bad(f, "run", "builds %s but never kind-loads it (the manifests pull it Never)", tag)
		}
		if !used[tag] {
			p.bad(f, "run", "builds %s, which no manifest uses", tag)
		}
	}
	for tag := range loaded {
		if _, ok := builds[tag]; !ok {
			p.bad(f, "run", "kind-loads %s, which it does not build", tag)
		}
	}
}
