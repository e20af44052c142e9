package conform

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/idemcheck/idemcheck/internal/freeport"
)

// deployedChecks are the checks a deployment's run should reach: the
// controlled ones, the PSP's lost reply and concurrent copies (through
// fakepsp's own faults: there is no recording front), and S-deps through
// the user's Toxiproxy.
var deployedChecks = []string{"A1", "A2", "A3", "A4", "S-restart", "B5", "S-deps"}

// TestDeploymentNotStartedByIdemcheck: nothing of the system is started by
// the run under test, as in Compose or Kubernetes: a toxiproxy-server
// process, `idemcheck psp` in a process of its own, and two paysvc
// instances that reach fakepsp through a proxy the run makes on that
// server (toxiproxy.api, a fixed listen), controlled by commands. Each
// check must reach the verdict and kinds it reaches when idemcheck starts
// everything itself, and the run must leave no proxy on the server and no
// fault armed at fakepsp.
func TestDeploymentNotStartedByIdemcheck(t *testing.T) {
	for _, flaw := range []string{"none", "new-psp-key"} {
		t.Run(flaw, func(t *testing.T) {
			// Each flaw has its own servers, instances and ports.
			t.Parallel()
			f := fixture{flaw: flaw, instances: 2, env: `PSP_URL: "http://${PSP_ADDR}"`, extra: pspLink}
			_, owned, _ := f.run(t, Options{Only: deployedChecks, Seed: 11})
			api := startToxiproxyServer(t)
			psp := startFakePSP(t)
			listen := fmt.Sprintf("127.0.0.1:%d", port(t))
			f.extra = fmt.Sprintf("toxiproxy:\n  api: %s\n  links:\n    - {name: PSP, upstream: fakepsp, listen: %q}\n", api, listen)
			text := outside(t, f, "http://"+listen)
			text = strings.Replace(text, "  fakepsp: true", "  fakepsp_url: "+psp, 1)
			code, rep, out := runText(t, text, Options{Only: deployedChecks, Seed: 11})
			if got, want := verdictKinds(rep), verdictKinds(owned); !slices.Equal(got, want) {
				t.Fatalf("deployed: %v, started by idemcheck: %v (exit %d)\n%s", got, want, code, out)
			}
			for _, r := range rep.Results {
				if r.Verdict == "n/a" || r.Verdict == "error" || r.Verdict == "inconclusive" {
					t.Errorf("%s: %s (%s): every deployed check must run", r.ID, r.Verdict, r.Why)
				}
			}
			if !strings.Contains(out, "not started by idemcheck") {
				t.Errorf("the run did not say it used the fakepsp at %s:\n%s", psp, out)
			}
			if ps, err := toxiclient.NewClient(api).Proxies(); err != nil || len(ps) != 0 {
				t.Errorf("proxies left on the user's toxiproxy-server: %v (%v)", ps, err)
			}
			if armed := armedFaults(t, psp); armed != 0 {
				t.Errorf("%d fault(s) left armed at fakepsp", armed)
			}
		})
	}
}

func port(t *testing.T) int {
	t.Helper()
	p, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startProcess starts cmd in a group of its own, ended with the test, and
// waits until url answers 200.
func startProcess(t *testing.T, cmd *exec.Cmd, url string) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("%s did not answer at %s", cmd.Path, url)
		}
	}
}

// startToxiproxyServer runs toxiproxy-server itself, as a user's container
// would, with its proxy metrics on.
func startToxiproxyServer(t *testing.T) string {
	t.Helper()
	p := port(t)
	api := fmt.Sprintf("http://127.0.0.1:%d", p)
	startProcess(t, exec.Command(toxiproxyBin, "-host", "127.0.0.1", "-port", fmt.Sprint(p), "-proxy-metrics"), api+"/version")
	return api
}

// startFakePSP runs `idemcheck psp` in a process of its own (this test
// binary, re-executed: TestMain).
func startFakePSP(t *testing.T) string {
	t.Helper()
	p := port(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", p)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("IDEMCHECK_TEST_PSP=--listen 127.0.0.1:%d --secret-key sk_test_user --no-rate-limit", p))
	cmd.Stdout = os.Stderr
	startProcess(t, cmd, url+"/_psp/info")
	return url
}

func armedFaults(t *testing.T, psp string) int {
	t.Helper()
	r, err := http.Get(psp + "/_psp/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var fs []struct {
		Armed bool `json:"armed"`
	}
	if err := json.NewDecoder(r.Body).Decode(&fs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fs {
		if f.Armed {
			n++
		}
	}
	return n
}
