package scenario

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// attrCase draws a small run built to catch an index that differs from the
// direct search: ids inside other ids, a "-changed" order, a one-byte and
// an empty id now and then, the same id twice, shared keys, charge ids one
// inside another, amounts several orders sent, charges nothing explains.
func attrCase(r *rand.Rand) ([]history.Op, []pspfront.Exchange, []Order) {
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	idPool := []string{"ord-1", "ord-12", "ord-123", "rd-1", "ord-1-changed", "ord-2", "ord-23", "x-ord-2", "o"}
	if r.IntN(10) == 0 {
		idPool = append(idPool, "")
	}
	var orders []Order
	for range r.IntN(8) {
		o := Order{ID: pick(idPool), Amount: 1 + r.Int64N(6)}
		for range r.IntN(3) {
			o.Alt = append(o.Alt, 1+r.Int64N(7))
		}
		orders = append(orders, o)
	}
	chargeIDs := []string{"ch_1", "ch_12", "ch_2", "c", "ch_1x", ""}
	keys := []string{"", "k1", "k2", "k12", "k3"}
	noise := []string{"amount=3\n", "-changed", "ord-", "1", "2", "\n", "metadata[order]=", `{"id":"`, `"}`, "ch_"}
	text := func(names []string) string {
		var b strings.Builder
		for range r.IntN(5) {
			if r.IntN(2) == 0 {
				b.WriteString(pick(noise))
			} else {
				b.WriteString(pick(names))
			}
		}
		return b.String()
	}
	var charges []history.Op
	for i := range r.IntN(10) {
		c := history.Op{Op: history.OpCharge, Call: int64(i), Input: history.Input{PSPKey: pick(keys)}}
		if n := r.IntN(3); n > 0 {
			c.Input.Metadata = map[string]string{}
			for j := range n {
				c.Input.Metadata[fmt.Sprintf("m%d", r.IntN(3)+j)] = text(idPool)
			}
		}
		if r.IntN(4) > 0 {
			c.Output = &history.Output{ChargeID: pick(chargeIDs)}
		}
		if r.IntN(5) > 0 {
			v := 1 + r.Int64N(8)
			c.Input.Amount = &v
		}
		charges = append(charges, c)
	}
	var ex []pspfront.Exchange
	for range r.IntN(12) {
		ex = append(ex, pspfront.Exchange{Method: "POST", Path: "/v1/charges", Key: pick(keys), Body: text(idPool), RespBody: text(chargeIDs), Status: 200})
	}
	return charges, ex, orders
}

// TestAttributeAgreesWithNaive: the indexed Attribute gives exactly the
// direct search's answer (By, How, Unattributed) on 2000 drawn runs.
func TestAttributeAgreesWithNaive(t *testing.T) {
	seed := testseed.Seed(t)
	t.Logf("seed %d (IDEMCHECK_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 54))
	how := map[string]int{}
	unattributed := 0
	for i := range 2000 {
		charges, ex, orders := attrCase(r)
		want := attributeNaive(charges, ex, orders)
		got := Attribute(charges, ex, orders)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d case %d: indexed %+v, naive %+v\norders %+v\ncharges %+v\nexchanges %+v", seed, i, got, want, orders, charges, ex)
		}
		for k, n := range want.How {
			how[k] += n
		}
		unattributed += len(want.Unattributed)
	}
	// The cases must reach every way of attributing, or agreeing proves little.
	for _, k := range []string{ByMetadata, ByRequest, ByAmount} {
		if how[k] == 0 {
			t.Errorf("no case attributed a charge by %s: the generator misses that path", k)
		}
	}
	if unattributed == 0 {
		t.Errorf("no case left a charge unattributed: the generator misses that path")
	}
	t.Logf("attributed %v, unattributed %d", how, unattributed)
}
