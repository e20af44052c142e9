package scenario

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// JudgeExecutions names a double execution that the money did not show:
// with a double charge the judge has already said more.
func (t *T) JudgeExecutions(in Intent, rule string) {
	t.mu.Lock()
	n := t.together
	t.mu.Unlock()
	name := t.Env.D.Intent(in.Caller, in.Key)
	if n < 2 || t.hasFinding(checker.KindDoubleCharge, name) {
		return
	}
	var reqs []string
	for _, x := range orderRequests(t.Env.Front.Exchanges(), in) {
		reqs = append(reqs, fmt.Sprintf("%s %s key %q -> %d", x.Method, x.Path, x.Key, x.Status))
	}
	f := t.Safety(checker.KindDoubleExecution, rule, "%d PSP requests of order %s were in flight at the same moment while its copies were: two copies executed, and only the PSP's idempotency kept one charge (PSP requests: %v)",
		n, in.Meaning.OrderID, reqs)
	f.Intent, f.Amount = name, in.Meaning.Amount
}

// containsOrder: the request names the order, or carries its amount
// (each intent's amount is its own).
func containsOrder(s string, in Intent) bool {
	return strings.Contains(s, in.Meaning.OrderID) || strings.Contains(s, fmt.Sprintf("amount=%d\n", in.Meaning.Amount))
}

// OrderRequests counts the requests among xs that charge or change in's
// order (POSTs naming it or carrying its amount).
func OrderRequests(xs []pspfront.Exchange, in Intent) int { return len(orderRequests(xs, in)) }

func orderRequests(xs []pspfront.Exchange, in Intent) []pspfront.Exchange {
	var out []pspfront.Exchange
	for _, x := range xs {
		if x.Method == "POST" && containsOrder(x.Path+"\n"+x.Body, in) {
			out = append(out, x)
		}
	}
	return out
}
