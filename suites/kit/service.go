package kit

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
)

// Link is a Toxiproxy link: LoseReply, HoldReply, Delay, Cut, Fired.
type Link = faults.Link

// Client is a client of your service at url, recording into r.
func (r *Record) Client(name, caller, url string) *Client {
	return &Client{Name: name, Caller: caller, URL: url, Rec: r.Rec}
}

// Serve runs h on a loopback port for the rest of the spec and returns its
// base URL (http://127.0.0.1:port): your service in the test's own process.
func Serve(h http.Handler) string {
	ginkgo.GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		gomega.Expect(s.Shutdown(ctx)).To(gomega.Succeed())
		gomega.Expect(<-done).To(gomega.MatchError(http.ErrServerClosed))
	}, ginkgo.NodeTimeout(30*time.Second))
	return "http://" + ln.Addr().String()
}

// Link puts a Toxiproxy link in front of upstream (host:port or an
// http:// base URL) for the rest of the spec (Need.Toxiproxy): point your
// service, or your client, at its Addr, and lose or delay what crosses it.
// Teardown heals and removes it.
func (w *World) Link(name, upstream string) *Link {
	ginkgo.GinkgoHelper()
	gomega.Expect(w.Env.Toxi).NotTo(gomega.BeNil(), "World.Link needs Need.Toxiproxy")
	l, err := w.Env.Toxi.Link(w.Name+"-"+name, strings.TrimPrefix(upstream, "http://"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	w.OnTeardown(func(context.Context) {
		_ = l.Heal()
		_, _ = l.Disable()
	})
	return l
}
