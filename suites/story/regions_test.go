package story

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// followR1 makes R2 follow R1 through two links that carry the Region lag:
// Postgres logical replication of the ledger schema into R2's database, and
// Valkey replication. The links are clean for the first sync.
func (w *world) followR1(ctx context.Context) {
	var err error
	u, err := url.Parse(w.dsn1)
	Expect(err).NotTo(HaveOccurred())
	w.pgLink, err = srv.toxi.Link(w.name+"-pg-R1-R2", u.Host)
	Expect(err).NotTo(HaveOccurred())
	w.vkLink, err = srv.toxi.Link(w.name+"-vk-R1-R2", srv.r1.Valkey.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	w.follow, err = region.FollowPostgres(ctx, w.dsn1, w.dsn2, "s_"+w.name, w.name, w.pgLink.Addr())
	Expect(err).NotTo(HaveOccurred())
	Expect(region.FollowValkey(ctx, srv.r1.Valkey.Endpoint(), srv.r2.Valkey.Endpoint(), w.vkLink.Addr())).To(Succeed())
	for _, l := range []*faults.Link{w.pgLink, w.vkLink} {
		_, err := l.Delay(faults.Downstream, w.lag(), 0)
		Expect(err).NotTo(HaveOccurred())
	}
}

// cutR1 is R1 failing mid-replication: nothing it writes from now on
// reaches R2.
func (w *world) cutR1() {
	for _, l := range []*faults.Link{w.pgLink, w.vkLink} {
		_, err := l.Cut()
		Expect(err).NotTo(HaveOccurred())
	}
}

// promoteR2 makes R2 its own primary and starts its stack: LB, two API
// servers, resolver and webhook. Its relay and workers start separately,
// with their failpoints.
func (w *world) promoteR2(ctx context.Context) {
	Expect(w.follow.Promote(ctx)).To(Succeed())
	Expect(region.PromoteValkey(ctx, srv.r2.Valkey.Endpoint())).To(Succeed())
	dir := filepath.Join(w.logDir, "R2")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	st, err := refstack.Start(ctx, refstack.Config{PostgresDSN: w.dsn2, ValkeyAddr: srv.r2.Valkey.Endpoint(), PSPURL: w.psp.URL(),
		PSPKey: w.psp.SecretKey(), WebhookSecret: w.psp.WebhookSecret(), Mutants: w.mutants, Name: w.name, Region: "R2", LogDir: dir})
	if st != nil {
		w.r2 = st
	}
	Expect(err).NotTo(HaveOccurred())
}

// routeToR2 tells the router R2 exists and takes R1's callers.
func (w *world) routeToR2() {
	w.routerCall("/region?name=R2&url=" + url.QueryEscape(w.r2.LB.URL))
	w.routerCall("/failover?from=R1&to=R2")
}

func (w *world) routerCall(path string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPut, w.routerAdm+path, nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusNoContent), "router PUT %s", path)
}

// startRelay starts one incarnation of a Region's relay; arm is its failpoints.
func (w *world) startRelay(ctx context.Context, st *refstack.Stack, name, arm string) *refstack.Tier {
	args := []string{"-postgres", st.DSN, "-brokers", srv.brokers, "-topic", w.topic}
	if arm != "" {
		args = append(args, "-failpoints", arm)
	}
	t, err := st.StartTier(ctx, "relay", name, "", args)
	Expect(err).NotTo(HaveOccurred())
	return t
}

// startWorker starts a worker of a Region; arm is its failpoints.
func (w *world) startWorker(ctx context.Context, st *refstack.Stack, name, arm string) *refstack.Tier {
	args := w.workerArgs(name, st.DSN)
	if arm != "" {
		args = append(args, "-failpoints", arm)
	}
	t, err := st.StartTier(ctx, worker.TierName, name, "", args)
	Expect(err).NotTo(HaveOccurred())
	return t
}

// tier finds a stack's tier by name.
func tierOf(st *refstack.Stack, name string) *refstack.Tier {
	GinkgoHelper()
	for _, t := range st.Tiers() {
		if t.Name == name {
			return t
		}
	}
	Fail("no tier " + name)
	return nil
}
