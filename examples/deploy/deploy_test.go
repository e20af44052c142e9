// Package deploy holds the deployment examples (compose/, kubernetes/, and
// ci/examples/kind.yml) and this test, which runs no container: it parses
// every file and cross-checks them, so that what the examples name (images,
// ports, variables, files, instances, permissions) exists where they say.
package deploy

import (
	"strings"
	"testing"
)

// all runs every check on the parsed examples.
func all(ex *examples) problems {
	var p problems
	checkDockerfiles(ex, &p)
	checkCompose(ex, &p)
	checkKube(ex, &p)
	checkWorkflow(ex, &p)
	return p
}

func TestDeployExamples(t *testing.T) {
	ex := load(t)
	// The parse found what the checks range over (a check over nothing
	// passes).
	if n := len(ex.compose.Services); n != 7 {
		t.Errorf("compose.yaml: %d services, want 7 (postgres, toxiproxy, fakepsp, migrate, pay-1, pay-2, idemcheck)", n)
	}
	if n := len(ex.kube); n != 13 {
		t.Errorf("kubernetes: %d objects, want 13 (the ConfigMap is generated)", n)
	}
	if n := len(workflowBuilds(ex)); n != 3 {
		t.Errorf("%s: %d images built, want 3", workflowYML, n)
	}
	for _, p := range all(ex) {
		t.Error(p)
	}
}

// TestChecksCatchMistakes breaks the parsed examples one way at a time and
// asserts the checks name the break.
func TestChecksCatchMistakes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(ex *examples)
		want   string
	}{
		{"a latest image", func(ex *examples) {
			s := ex.compose.Services["postgres"]
			s.Image = "postgres:latest"
			ex.compose.Services["postgres"] = s
		}, `compose/compose.yaml: services.postgres.image: "postgres:latest" is :latest`},
		{"an untagged base image", func(ex *examples) {
			ex.dockerfiles["examples/deploy/Dockerfile"].images[0] = "golang"
		}, `examples/deploy/Dockerfile: FROM/COPY --from: "golang" has no tag`},
		{"a variable the service does not read", func(ex *examples) {
			ex.compose.Services["pay-2"].Environment["PSP_TIMEOUT"] = "1s"
		}, "compose/compose.yaml: services.pay-2.environment.PSP_TIMEOUT: the service does not read PSP_TIMEOUT"},
		{"a service bypassing the link", func(ex *examples) {
			ex.kube[podOwner(ex, "pay")].Spec.Template.Spec.Containers[0].Env[0].Value = "postgres://pay:pay@postgres:5432/pay"
		}, "not through the link DB"},
		{"a service on loopback", func(ex *examples) {
			s := ex.compose.Services["pay-1"]
			s.Command = nil
			ex.compose.Services["pay-1"] = s
		}, `services.pay-1.command: the service listens on "127.0.0.1"`},
		{"a Service port nothing listens on", func(ex *examples) {
			ex.kube[objIndex(ex, "Service", "toxiproxy")].Spec.Ports[1].Port = 15433
		}, "kubernetes/pay.yaml: StatefulSet/pay.containers[pay].env.DATABASE_URL: postgres://pay:pay@toxiproxy:15432/pay?connect_timeout=5: Service toxiproxy has no port 15432"},
		{"a healthcheck on the wrong port", func(ex *examples) {
			s := ex.compose.Services["pay-1"]
			s.Healthcheck = &struct {
				Test []string `yaml:"test"`
			}{[]string{"CMD", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8081"}}
			ex.compose.Services["pay-1"] = s
		}, "compose/compose.yaml: services.pay-1.healthcheck: probes port 8081"},
		{"a PSP key fakepsp does not have", func(ex *examples) {
			ex.compose.Services["pay-1"].Environment["PSP_KEY"] = "sk_test_other"
		}, `services.pay-1.environment.PSP_KEY: "sk_test_other", want "sk_test_idemcheck"`},
		{"a Job that waits for another address", func(ex *examples) {
			c := &ex.kube[objIndex(ex, "Job", "idemcheck")].Spec.Template.Spec.InitContainers[0]
			c.Args[0] = strings.Replace(c.Args[0], "fakepsp:12111", "fakepsp:80", 1)
		}, "kubernetes/job.yaml: Job/idemcheck.initContainers: waits for"},
		{"an instance that is not a pod", func(ex *examples) {
			ex.kubeCfg.Target.Control.Instances = []string{"pay-1", "pay-0"}
		}, `kubernetes/idemcheck.yaml: target.control.instances[0]: "pay-1"`},
		{"a container name that is not an instance", func(ex *examples) {
			s := ex.compose.Services["pay-2"]
			s.ContainerName = "pay-two"
			ex.compose.Services["pay-2"] = s
		}, `compose/idemcheck.yaml: target.control.instances[1]: "pay-2" is not the container_name`},
		{"a wildcard verb", func(ex *examples) {
			ex.kube[objIndex(ex, "Role", "idemcheck-control")].Rules[0].Verbs = []string{"*"}
		}, "Role/idemcheck-control.rules[0]: a wildcard"},
		{"a verb the kill needs, missing", func(ex *examples) {
			ex.kube[objIndex(ex, "Role", "idemcheck-control")].Rules[1].Verbs = []string{"patch"}
		}, `does not grant delete on pods "pay-0"`},
		{"exec on every pod", func(ex *examples) {
			ex.kube[objIndex(ex, "Role", "idemcheck-control")].Rules[2].ResourceNames = nil
		}, "grants create on every pods/exec; it is needed on [pay-0 pay-1] only"},
		{"a verb nothing uses", func(ex *examples) {
			r := &ex.kube[objIndex(ex, "Role", "idemcheck-control")].Rules[0]
			r.Verbs = append(r.Verbs, "patch")
		}, "grants patch on pods, which no control command uses"},
		{"a config file not mounted", func(ex *examples) {
			s := ex.compose.Services["idemcheck"]
			s.Command = []string{"run", "--config", "/work/other.yaml"}
			ex.compose.Services["idemcheck"] = s
		}, `services.idemcheck.command: --config "/work/other.yaml"`},
		{"an image the workflow does not load", func(ex *examples) {
			j := ex.workflow.Jobs["kind"]
			j.Steps[3].Run = strings.Replace(j.Steps[3].Run, "kind load docker-image --name idemcheck idemcheck-example/payments:kind", "", 1)
			ex.workflow.Jobs["kind"] = j
		}, "builds idemcheck-example/payments:kind but never kind-loads it"},
		{"a kind node outside kubectl's skew", func(ex *examples) {
			j := ex.workflow.Jobs["kind"]
			j.Steps[1].With["node_image"] = "kindest/node:v1.29.2"
			ex.workflow.Jobs["kind"] = j
		}, `kind-action.node_image: "kindest/node:v1.29.2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := load(t)
			if p := all(ex); len(p) != 0 {
				t.Fatalf("the examples have problems before the break: %v", p)
			}
			tc.break_(ex)
			p := all(ex)
			for _, s := range p {
				if strings.Contains(s, tc.want) {
					return
				}
			}
			t.Errorf("no problem says %q; got %q", tc.want, p)
		})
	}
}

func objIndex(ex *examples, kind, name string) int {
	for i, o := range ex.kube {
		if o.Kind == kind && o.Metadata.Name == name {
			return i
		}
	}
	panic(kind + "/" + name + " not in the manifests")
}

func podOwner(ex *examples, name string) int { return objIndex(ex, "StatefulSet", name) }
