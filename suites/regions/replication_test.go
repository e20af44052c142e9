package regions

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/stack/region"
	"github.com/idemcheck/idemcheck/targets/mrec"
)

// followR1 (G2) makes R2 a follower of R1: Postgres logical replication of
// the world's schema and Valkey replication, each through its own link. The
// links are clean while the first sync runs, then carry the lag.
func (w *world) followR1(ctx context.Context) {
	var err error
	w.pgLink, err = srv.toxi.Link(w.name+"-pg-R1-R2", hostPort(w.r1.svc.Postgres.Endpoint()))
	Expect(err).NotTo(HaveOccurred())
	w.vkLink, err = srv.toxi.Link(w.name+"-vk-R1-R2", w.r1.svc.Valkey.Endpoint())
	Expect(err).NotTo(HaveOccurred())
	w.follow, err = region.FollowPostgres(ctx, w.r1.svc.Postgres.Endpoint(), w.r2.svc.Postgres.Endpoint(), "s_"+w.name, w.name, w.pgLink.Addr())
	Expect(err).NotTo(HaveOccurred())
	Expect(region.FollowValkey(ctx, w.r1.svc.Valkey.Endpoint(), w.r2.svc.Valkey.Endpoint(), w.vkLink.Addr())).To(Succeed())
	// R1's changes flow to R2 on the replies of R2's connections.
	for _, l := range []*faults.Link{w.pgLink, w.vkLink} {
		_, err := l.Delay(faults.Downstream, w.lag, 0)
		Expect(err).NotTo(HaveOccurred())
	}
}

// hostPort is the host:port of a postgres:// DSN.
func hostPort(dsn string) string {
	GinkgoHelper()
	u, err := url.Parse(dsn)
	Expect(err).NotTo(HaveOccurred())
	return u.Host
}

// startReplicators (G1) runs one mrec replicator per Region; each ships its
// Region's payments items to the other's receiver through a link that
// carries the lag.
func (w *world) startReplicators(ctx context.Context) {
	addrs := map[string]string{}
	for _, r := range []*regionStack{w.r1, w.r2} {
		addr, err := freeport.Addr()
		Expect(err).NotTo(HaveOccurred())
		addrs[r.name] = addr
		slot := w.name + "_mrec_" + strings.ToLower(r.name)
		pool := w.pool(ctx, r)
		_, err = pool.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'test_decoding')`, slot)
		pool.Close()
		Expect(err).NotTo(HaveOccurred())
		w.slots[r] = slot
	}
	for _, r := range []*regionStack{w.r1, w.r2} {
		peer := w.r2
		if r == w.r2 {
			peer = w.r1
		}
		l, err := srv.toxi.Link(w.name+"-mrec-"+r.name+"-"+peer.name, addrs[peer.name])
		Expect(err).NotTo(HaveOccurred())
		_, err = l.Delay(faults.Upstream, w.lag, 0)
		Expect(err).NotTo(HaveOccurred())
		w.mrecLinks = append(w.mrecLinks, l)
		a := w.startProc(ctx, "mrec-"+r.name, mrec.TierName, "-region", r.name, "-pg", r.st.DSN, "-schema", "s_"+w.name,
			"-slot", w.slots[r], "-listen", addrs[r.name], "-peer", l.Addr())
		w.mrecAdmins[r.name] = a["admin"]
	}
}

// mrecStats reads Region r's replicator counters.
type mrecStats struct {
	mrec.Stats
	Shipped int64 `json:"shipped"`
}

func (w *world) mrecStats(r string) mrecStats {
	GinkgoHelper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(w.mrecAdmins[r] + mrec.StatsPath)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var st mrecStats
	Expect(json.NewDecoder(resp.Body).Decode(&st)).To(Succeed())
	return st
}
