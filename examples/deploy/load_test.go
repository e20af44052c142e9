package deploy

// Parsing of every file of the examples into the few fields the checks
// read (unknown fields are ignored here; Compose and kubectl judge those).

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/idemcheck/idemcheck/conform/config"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

type composeFile struct {
	Name     string                    `yaml:"name"`
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image         string            `yaml:"image"`
	Build         *composeBuild     `yaml:"build"`
	ContainerName string            `yaml:"container_name"`
	Command       []string          `yaml:"command"`
	Environment   map[string]string `yaml:"environment"`
	Volumes       []string          `yaml:"volumes"`
	Healthcheck   *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Profiles []string `yaml:"profiles"`
}

type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
	Target     string `yaml:"target"`
}

// kObj is one Kubernetes object, any of the kinds the example uses.
type kObj struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas                 int            `yaml:"replicas"`
		ServiceName              string         `yaml:"serviceName"`
		ClusterIP                string         `yaml:"clusterIP"`
		PublishNotReadyAddresses bool           `yaml:"publishNotReadyAddresses"`
		Selector                 map[string]any `yaml:"selector"`
		Ports                    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort any    `yaml:"targetPort"`
		} `yaml:"ports"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
	Rules []struct {
		APIGroups     []string `yaml:"apiGroups"`
		Resources     []string `yaml:"resources"`
		ResourceNames []string `yaml:"resourceNames"`
		Verbs         []string `yaml:"verbs"`
	} `yaml:"rules"`
	Subjects []struct {
		Kind      string `yaml:"kind"`
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"subjects"`
	RoleRef struct {
		Kind string `yaml:"kind"`
		Name string `yaml:"name"`
	} `yaml:"roleRef"`

	file string // the manifest it came from
}

type podSpec struct {
	ServiceAccountName string      `yaml:"serviceAccountName"`
	InitContainers     []container `yaml:"initContainers"`
	Containers         []container `yaml:"containers"`
	Volumes            []struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
	} `yaml:"volumes"`
}

type container struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Command         []string `yaml:"command"`
	Args            []string `yaml:"args"`
	Env             []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe *struct {
		HTTPGet *struct {
			Port any `yaml:"port"`
		} `yaml:"httpGet"`
		TCPSocket *struct {
			Port any `yaml:"port"`
		} `yaml:"tcpSocket"`
	} `yaml:"readinessProbe"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func (c container) env() map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

type kustomization struct {
	Namespace          string   `yaml:"namespace"`
	Resources          []string `yaml:"resources"`
	ConfigMapGenerator []struct {
		Name  string   `yaml:"name"`
		Files []string `yaml:"files"`
	} `yaml:"configMapGenerator"`
}

type workflow struct {
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
			Run  string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// dockerfile is one Dockerfile's stages: each stage's base (FROM) and its
// lines, and every external image it names (FROM, COPY --from).
type dockerfile struct {
	path   string
	stages map[string]stage
	images []string
}

type stage struct {
	from  string
	lines []string
}

// examples is everything parsed, plus what the service's source reads.
type examples struct {
	compose     composeFile
	composeCfg  *config.Config
	kube        []kObj
	kust        kustomization
	kubeCfg     *config.Config
	workflow    workflow
	dockerfiles map[string]*dockerfile // by path from the repository root
	serviceEnv  map[string]bool        // os.Getenv names in the service's main
}

const (
	composeDir  = "compose"
	kubeDir     = "kubernetes"
	workflowYML = "ci/examples/kind.yml" // from the repository root
	serviceMain = "examples/payments/cmd/payments"
)

func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// loadKube reads every object of the manifests the kustomization lists.
func loadKube(t *testing.T, k kustomization) []kObj {
	var out []kObj
	for _, r := range k.Resources {
		b, err := os.ReadFile(filepath.Join(kubeDir, r))
		if err != nil {
			t.Fatalf("%s/kustomization.yaml: resources: %v", kubeDir, err)
		}
		d := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o kObj
			err := d.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s/%s: %v", kubeDir, r, err)
			}
			if o.Kind != "" {
				o.file = kubeDir + "/" + r
				out = append(out, o)
			}
		}
	}
	return out
}

var (
	fromRE   = regexp.MustCompile(`(?i)^FROM\s+(\S+)(?:\s+AS\s+(\S+))?`)
	copyFrom = regexp.MustCompile(`--from=(\S+)`)
	getenvRE = regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("([A-Z0-9_]+)"\)`)
)

func loadDockerfile(t *testing.T, rel string) *dockerfile {
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatalf("Dockerfile %s: %v", rel, err)
	}
	df := &dockerfile{path: rel, stages: map[string]stage{}}
	cur, n := "", 0
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if m := fromRE.FindStringSubmatch(l); m != nil {
			cur = m[2]
			if cur == "" {
				cur = "#" + string(rune('0'+n)) // an unnamed stage
			}
			n++
			if _, isStage := df.stages[m[1]]; !isStage {
				df.images = append(df.images, m[1])
			}
			df.stages[cur] = stage{from: m[1]}
			continue
		}
		s := df.stages[cur]
		s.lines = append(s.lines, l)
		df.stages[cur] = s
		if m := copyFrom.FindStringSubmatch(l); m != nil {
			if _, isStage := df.stages[m[1]]; !isStage {
				df.images = append(df.images, m[1])
			}
		}
	}
	return df
}

// chain is a stage's lines with those of the stages it is built FROM.
func (df *dockerfile) chain(target string) []string {
	var out []string
	for s, ok := df.stages[target]; ok; s, ok = df.stages[s.from] {
		out = append(append([]string{}, s.lines...), out...)
	}
	return out
}

func load(t *testing.T) *examples {
	t.Helper()
	ex := &examples{dockerfiles: map[string]*dockerfile{}, serviceEnv: map[string]bool{}}
	decodeFile(t, filepath.Join(composeDir, "compose.yaml"), &ex.compose)
	decodeFile(t, filepath.Join(kubeDir, "kustomization.yaml"), &ex.kust)
	ex.kube = loadKube(t, ex.kust)
	decodeFile(t, filepath.Join(repoRoot, workflowYML), &ex.workflow)
	for _, p := range []string{composeDir + "/idemcheck.yaml", kubeDir + "/idemcheck.yaml"} {
		c, err := config.Load(p)
		if err != nil {
			t.Fatalf("%s does not validate with conform/config: %v", p, err)
		}
		if p == composeDir+"/idemcheck.yaml" {
			ex.composeCfg = c
		} else {
			ex.kubeCfg = c
		}
	}
	for _, rel := range []string{"Dockerfile", "examples/deploy/Dockerfile"} {
		ex.dockerfiles[rel] = loadDockerfile(t, rel)
	}
	srcs, _ := filepath.Glob(filepath.Join(repoRoot, serviceMain, "*.go"))
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range getenvRE.FindAllStringSubmatch(string(b), -1) {
			ex.serviceEnv[m[1]] = true
		}
	}
	if len(ex.serviceEnv) == 0 {
		t.Fatalf("%s: found no os.Getenv in the service's source", serviceMain)
	}
	return ex
}
