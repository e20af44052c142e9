package stripe

import (
	"github.com/idemcheck/idemcheck/internal/spill"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// visibleAt is the index of the newest version of pi search shows at now,
// when each version waits its search delay (the host's, drawn per object
// and version) and at least faultLag (an armed SearchLag fault); -1 when
// none is visible yet.
func (p *API) visibleAt(pi *Intent, now time.Time, faultLag time.Duration) int {
	visible := -1
	for i, v := range pi.Versions {
		if v.At().Add(max(faultLag, p.h.SearchDelay(pi.ID, i))).After(now) {
			continue // a later version may already be visible
		}
		visible = i
	}
	return visible
}

// searchIntents answers from each PaymentIntent's newest version that has
// reached search (visibleAt, over the host's SearchDelay): search is not
// read-after-write, as Stripe warns.
func (p *API) searchIntents(c *call) response {
	query, perr := ParseQuery(c.params.Str("query"))
	if perr != "" {
		return errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "parameter_invalid", Param: "query", Message: perr})
	}
	limit, bad := ListLimit(c.params)
	if bad != nil {
		return *bad
	}
	offset := 0
	if pg := c.params.Str("page"); pg != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(pg, "page_"))
		if err != nil || n < 0 {
			return invalidParam("page", "Invalid page token.")
		}
		offset = n
	}
	lag, lagFault := p.faults.LargestSearchLag()
	now := time.Now()
	stale := false
	// A hit keeps where its version is, not its intent: a broad query
	// matches most of a soak's intents, each decoded from disk.
	type hit struct {
		id  string
		v   int
		ref spill.Ref
	}
	var hits []hit
	p.mu.Lock()
	err := c.acct.intents.each(func(pi *Intent) bool {
		v := p.visibleAt(pi, now, lag)
		if v < 0 || !SameVersion(pi.Versions[v].Fields(pi.Created), pi.Versions[len(pi.Versions)-1].Fields(pi.Created)) {
			stale = true
		}
		if v >= 0 && query.MatchesFields(pi.Versions[v].Fields(pi.Created)) {
			hits = append(hits, hit{pi.ID, v, pi.Versions[v].Ref})
		}
		return true
	})
	if err != nil {
		p.mu.Unlock()
		return storageError(err)
	}
	offset = min(offset, len(hits))
	more := len(hits)-offset > limit
	end := len(hits)
	if more {
		end = offset + limit
	}
	// Only the page's versions are read back from disk.
	page := make([]any, 0, end-offset)
	for _, h := range hits[offset:end] {
		snap, err := p.versions.json(h.id, h.v, h.ref)
		if err != nil {
			p.mu.Unlock()
			return storageError(err)
		}
		page = append(page, snap)
	}
	p.mu.Unlock()
	if stale && lagFault != nil {
		lagFault.Bump()
	}
	var next any
	if more {
		next = "page_" + strconv.Itoa(offset+limit)
	}
	return ok(map[string]any{"object": "search_result", "url": "/v1/payment_intents/search", "has_more": more, "next_page": next, "data": page})
}
