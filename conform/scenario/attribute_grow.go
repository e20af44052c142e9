package scenario

import (
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// A round's judge asks for the attribution once per intent, and the
// service keeps calling the PSP meanwhile (retrieves, searches, webhook
// handlers' reads): each call is an exchange more in the front's log, and
// remaking the attribution for each re-read the whole run's charges,
// exchanges and orders from disk, so a soak's judge took longer every
// round. Exchanges logged after an attribution change it only as Attribute
// reads them; when they provably cannot, the cached one stands for the
// longer log, and only the new exchanges were read.

// openCharges are the charges an attribution gave to no order by their
// metadata or by a logged request: those by amount and the unattributed.
// Only they can be attributed by a request logged later: metadata goes
// before any request, and of a charge's requests the first logged wins.
type openCharges struct {
	n    int
	keys map[string]bool
	ids  []string
}

func (o *openCharges) add(c history.Op) {
	o.n++
	if k := c.Input.PSPKey; k != "" {
		if o.keys == nil {
			o.keys = map[string]bool{}
		}
		o.keys[k] = true
	}
	if c.Output != nil && c.Output.ChargeID != "" {
		o.ids = append(o.ids, c.Output.ChargeID)
	}
}

// changedBy says whether exchanges logged after those an attribution of
// open was made from could change it: one whose request names an order
// (requestIndex reads nothing else of a request) and that made an open
// charge (its idempotency key) or names one (its answer), as
// requestIndex.order matches them.
func (t *attributor) changedBy(open openCharges, later []pspfront.Exchange) bool {
	if open.n == 0 {
		return false
	}
	var named *textIndex
	for _, x := range later {
		if t.inText(x.Body) == "" {
			continue
		}
		if open.keys[x.Key] {
			return true
		}
		if named == nil {
			named = newTextIndex(open.ids)
		}
		if len(open.ids) > 0 && named.first(x.RespBody) >= 0 {
			return true
		}
	}
	return false
}
