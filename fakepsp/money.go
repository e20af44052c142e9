package fakepsp

import (
	"sort"
	"strings"

	wire "github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// balanceTxnID is the balance transaction of a charge: it exists once the
// charge captured money.
func balanceTxnID(pi *paymentIntent) string {
	if pi.Received == 0 || pi.AttemptID == "" {
		return ""
	}
	return "txn_" + strings.TrimPrefix(pi.AttemptID, "ch_")
}

func refundTxnID(rf *refund) string { return "txn_" + strings.TrimPrefix(rf.id, "re_") }

// balanceTxnJSON is a charge's: the amount captured, booked, less the fee.
func balanceTxnJSON(pi *paymentIntent) map[string]any {
	amount, rate := wire.Booked(pi.Received, pi.Currency)
	return wire.TxnJSON(balanceTxnID(pi), amount, wire.Fee(amount), rate, "charge", pi.AttemptID, pi.AttemptAt)
}

// refundTxnJSON is a refund's: the amount returned, booked at the charge's rate.
func refundTxnJSON(rf *refund) map[string]any {
	amount, rate := wire.Booked(rf.amount, rf.pi.Currency)
	return wire.TxnJSON(refundTxnID(rf), -amount, 0, rate, "refund", rf.id, rf.created)
}

// txnObject is the balance transaction id names; the caller holds p.mu.
func (a *account) txnObject(id string) map[string]any {
	suffix := strings.TrimPrefix(id, "txn_")
	if pi := a.charges["ch_"+suffix]; pi != nil && balanceTxnID(pi) == id {
		return balanceTxnJSON(pi)
	}
	if rf := a.refunds["re_"+suffix]; rf != nil {
		return refundTxnJSON(rf)
	}
	return nil
}

func (p *PSP) retrieveBalanceTxn(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := c.acct.txnObject(id); t != nil {
		return ok(t)
	}
	return notFound("id", "balance transaction", id)
}

// listBalanceTxns lists balance transactions, newest first, optionally of
// one type or source (GET /v1/balance_transactions).
func (p *PSP) listBalanceTxns(c *call) response {
	typ, src := c.params.Str("type"), c.params.Str("source")
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []map[string]any
	for _, id := range c.acct.chargeSeq {
		if pi := c.acct.charges[id]; pi != nil && balanceTxnID(pi) != "" {
			all = append(all, balanceTxnJSON(pi))
		}
	}
	for _, rf := range c.acct.refundSeq {
		all = append(all, refundTxnJSON(rf))
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
