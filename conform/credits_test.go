package conform

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

func TestBindRefRenumbers(t *testing.T) {
	ref := scenario.PaymentRef{OrderID: "o", PaymentID: "p", PSPPaymentID: "pi"}
	for _, c := range []struct{ q, want, args string }{
		{"SELECT a FROM c WHERE id = $2", "SELECT a FROM c WHERE id = $1", "[p]"},
		{"SELECT a FROM c WHERE pi = $3 OR id = $2 OR pi2 = $3", "SELECT a FROM c WHERE pi = $1 OR id = $2 OR pi2 = $1", "[pi p]"},
		{"SELECT a FROM c WHERE o = $1", "SELECT a FROM c WHERE o = $1", "[o]"},
	} {
		q, args := bindRef(c.q, ref)
		if q != c.want || fmt.Sprint(args) != c.args {
			t.Errorf("bindRef(%q) = %q %v, want %q %s", c.q, q, args, c.want, c.args)
		}
	}
}
