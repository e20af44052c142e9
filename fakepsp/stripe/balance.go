package stripe

import (
	"cmp"
	"sort"
	"strings"
)

// txnObject is the balance transaction id names, nil when none; the
// caller holds p.mu.
func (a *account) txnObject(id string) (map[string]any, error) {
	suffix := strings.TrimPrefix(id, "txn_")
	pi, err := a.chargeIntent("ch_" + suffix)
	if err != nil {
		return nil, err
	}
	if pi != nil && pi.BalanceTxnID() == id {
		return pi.BalanceTxnJSON(), nil
	}
	if rf, err := a.refunds.get("re_" + suffix); rf != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return rf.TxnJSON(), nil
	}
	return nil, nil
}

func (p *API) retrieveBalanceTxn(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	t, err := c.acct.txnObject(id)
	switch {
	case err != nil:
		return storageError(err)
	case t == nil:
		return notFound("id", "balance transaction", id)
	}
	return ok(t)
}

// listBalanceTxns lists balance transactions, newest first, optionally of
// one type or source (GET /v1/balance_transactions).
func (p *API) listBalanceTxns(c *call) response {
	typ, src := c.params.Str("type"), c.params.Str("source")
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []map[string]any
	var rerr error
	err := c.acct.charges.each(func(_, piSeq uint64) bool {
		pi, err := c.acct.intents.bySeq(piSeq)
		if err != nil {
			rerr = err
			return false
		}
		if pi != nil && pi.BalanceTxnID() != "" {
			all = append(all, pi.BalanceTxnJSON())
		}
		return true
	})
	if err = cmp.Or(err, rerr); err != nil {
		return storageError(err)
	}
	if err := c.acct.refunds.each(func(rf *Refund) bool { all = append(all, rf.TxnJSON()); return true }); err != nil {
		return storageError(err)
	}
	sort.SliceStable(all, func(i, j int) bool {
		ci, cj := all[i]["created"].(int64), all[j]["created"].(int64)
		if ci != cj {
			return ci > cj
		}
		return all[i]["id"].(string) > all[j]["id"].(string)
	})
	var items []any
	var ids []string
	for _, t := range all {
		if typ != "" && t["type"] != typ || src != "" && t["source"] != src {
			continue
		}
		items, ids = append(items, t), append(ids, t["id"].(string))
	}
	return paginate(c, "/v1/balance_transactions", ids, items)
}
