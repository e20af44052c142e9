package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// external is the starter turned into a config for a service idemcheck does
// not start: two fixed base URLs and no command.
func external(control string) string {
	s := strings.Replace(Starter, `  base_urls: ["http://127.0.0.1:${PORT_0}"]`, `  base_urls: ["http://127.0.0.1:8081", "http://127.0.0.1:8082"]`, 1)
	s = strings.Replace(s, `  command: ["./my-payment-service"]`+"\n", "", 1)
	s = strings.Replace(s, "  instances: 1            # >1 starts replicas (the replicas check)\n", "", 1)
	return strings.Replace(s, "  start_timeout: 20s\n", "  start_timeout: 20s\n"+control, 1)
}

func TestControlOfARunningService(t *testing.T) {
	c, err := Parse("c.yaml", []byte(external(`  control:
    instances: [pay-1, pay-2]
    kill: [docker, kill, "${INSTANCE}"]
    pause: [docker, pause, "${INSTANCE}"]
    resume: [docker, unpause, "${INSTANCE}"]
    restart: [sh, -c, "docker start ${INSTANCE} # ${INDEX}"]
`)))
	if err != nil {
		t.Fatal(err)
	}
	ct := c.Target.Control
	if got := ct.Argv(ct.Restart, 1); !slices.Equal(got, []string{"sh", "-c", "docker start pay-2 # 1"}) {
		t.Fatalf("restart argv of instance 1: %q", got)
	}
	if ct.TimeoutD().Seconds() != 30 || !ct.CanPause() {
		t.Fatalf("timeout %s, can pause %v", ct.TimeoutD(), ct.CanPause())
	}
	c, err = Parse("c.yaml", []byte(external("  control:\n    kill: [kill]\n    restart: [start]\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Target.Control.Instances; !slices.Equal(got, []string{"instance-0", "instance-1"}) || c.Target.Control.CanPause() {
		t.Fatalf("default names %v, can pause %v", got, c.Target.Control.CanPause())
	}
}

// Each mistake is one error naming its field and line.
func TestControlErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, field, says string }{
		{"no restart", external("  control:\n    kill: [docker, kill, x]\n"), "target.control.restart", "is required"},
		{"no kill", external("  control:\n    restart: [docker, start, x]\n"), "target.control.kill", "is required"},
		{"pause alone", external("  control:\n    kill: [k]\n    restart: [r]\n    pause: [p]\n"), "target.control.pause", "go together"},
		{"names", external("  control:\n    instances: [one]\n    kill: [k]\n    restart: [r]\n"), "target.control.instances", "1 instances for 2 base URLs"},
		{"timeout", external("  control:\n    kill: [k]\n    restart: [r]\n    timeout: soon\n"), "target.control.timeout", ""},
		{"with command", strings.Replace(Starter, "  start_timeout: 20s\n", "  start_timeout: 20s\n  control:\n    kill: [k]\n    restart: [r]\n", 1), "target.control", "does not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.text))
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 || es[0].Field != tc.field || es[0].Line == 0 || !strings.Contains(es[0].Error(), tc.says) {
				t.Fatalf("want one error at %s saying %q, got %v", tc.field, tc.says, err)
			}
		})
	}
}
