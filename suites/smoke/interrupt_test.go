package smoke

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/stack/services"
)

// interruptChildEnv makes this test binary a child that starts servers,
// announces them, and waits to be interrupted.
const interruptChildEnv = "IDEMCHECK_SMOKE_INTERRUPT_CHILD"

var _ = Describe("an interrupted run", Label("smoke"), func() {
	It("stops its servers and removes their directories on SIGINT", func() {
		if os.Getenv(interruptChildEnv) != "" {
			Skip("this is the child")
		}
		cmd := exec.Command(os.Args[0], "-ginkgo.focus=child holds servers until interrupted", "-ginkgo.no-color", "-test.run=TestSmoke")
		cmd.Env = append(os.Environ(), interruptChildEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		out, err := cmd.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		cmd.Stderr = GinkgoWriter
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

		var pids []int
		var addrs, dirs []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(GinkgoWriter, "child:", line)
			// Ginkgo's progress marks may share the line, so find the marker.
			if i := strings.Index(line, "SERVER "); i >= 0 {
				f := strings.Fields(line[i+len("SERVER "):])
				pid, _ := strconv.Atoi(f[0])
				pids = append(pids, pid)
				addrs = append(addrs, f[1])
				dirs = append(dirs, f[2:]...)
			}
			if strings.HasSuffix(line, "READY") {
				break
			}
		}
		Expect(pids).To(HaveLen(3), "the child did not announce its three servers")
		for _, pid := range pids {
			Expect(syscall.Kill(pid, 0)).To(Succeed(), "server pid %d is not running", pid)
		}
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		go func() { _, _ = bufio.NewReader(out).WriteTo(GinkgoWriter) }()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		Eventually(done, 60*time.Second).Should(Receive())
		expectNothingLeft(pids, addrs, dirs)
	})

	It("child holds servers until interrupted", func(sctx SpecContext) {
		if os.Getenv(interruptChildEnv) == "" {
			Skip("runs only as the interrupted child")
		}
		ctx := context.Background()
		st, err := services.Start(ctx, services.Options{Postgres: true, Kafka: true, Valkey: true, Log: os.Stderr})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(st.Stop(context.Background())).To(Succeed()) })
		before := ownDirs(st)
		for _, s := range []services.Service{st.Postgres, st.Kafka, st.Valkey} {
			fmt.Printf("SERVER %d %s %s\n", s.PID(), hostPort(s.Endpoint()), strings.Join(before, " "))
			before = nil
		}
		fmt.Println("READY")
		// Ginkgo cancels the spec's context on SIGINT, then runs the cleanup:
		// the path a Ctrl-C in CI takes.
		<-sctx.Done()
	}, NodeTimeout(5*time.Minute))
})
