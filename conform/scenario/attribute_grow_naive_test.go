package scenario

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/testseed"
)

// laterExchange draws an exchange logged after an attribution, aimed at
// its open charges (by their key, or naming them in the answer) and at the
// ways an order id can travel that the attribution's text search may or
// may not see: plain in the body, URL-encoded, JSON-escaped, only in the
// path's query, only in the answer, only in the key.
func laterExchange(r *rand.Rand, charges []history.Op, orders []Order) pspfront.Exchange {
	x := pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Status: 200}
	if len(charges) > 0 {
		c := charges[r.IntN(len(charges))]
		switch r.IntN(3) {
		case 0:
			x.Key = c.Input.PSPKey
		case 1:
			if c.Output != nil {
				x.RespBody = `{"latest_charge":"` + c.Output.ChargeID + `"}`
			}
		}
	}
	id := "ord-none"
	if len(orders) > 0 {
		id = orders[r.IntN(len(orders))].ID
	}
	switch r.IntN(7) {
	case 0:
		x.Body = "description=" + id
	case 1:
		x.Body = "description=" + url.QueryEscape("order "+id)
	case 2:
		b, _ := json.Marshal(map[string]string{"order": id})
		x.Body = strings.ReplaceAll(string(b), "-", `\u002d`)
	case 3:
		x.Path += "?order=" + url.QueryEscape(id)
	case 4:
		x.RespBody += `{"metadata":{"order":"` + id + `"}}`
	case 5:
		if x.Key == "" {
			x.Key = id
		}
	default:
		b, _ := json.Marshal(map[string]string{"order": id})
		x.Body = string(b)
	}
	return x
}

// TestChangedByAgreesWithNaive: whenever changedBy says exchanges logged
// after an attribution cannot change it, the direct search over all the
// exchanges gives exactly the cached answer. The later exchanges aim at the
// open charges and carry order ids in every form laterExchange draws; the
// draws must reach both answers of changedBy over open charges, and a
// change, or they prove little.
func TestChangedByAgreesWithNaive(t *testing.T) {
	seed := testseed.Seed(t)
	t.Logf("seed %d (IDEMCHECK_SEED=%d replays it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 62))
	var kept, changed, changedForReal int
	for i := range 5000 {
		charges, ex, orders := attrCase(r)
		split := r.IntN(len(ex) + 1)
		before, later := ex[:split:split], ex[split:]
		for range r.IntN(4) {
			later = append(later, laterExchange(r, charges, orders))
		}
		at := newAttributor(orders)
		cached, open := at.attribute(charges, before)
		all := append(before, later...)
		want := attributeNaive(charges, all, orders)
		if !at.changedBy(open, later) {
			if !reflect.DeepEqual(cached, want) {
				t.Fatalf("seed %d case %d: kept %+v, direct %+v\norders %+v\ncharges %+v\nbefore %+v\nlater %+v", seed, i, cached, want, orders, charges, before, later)
			}
			if open.n > 0 && len(later) > 0 {
				kept++
			}
			continue
		}
		changed++
		if !reflect.DeepEqual(cached, want) {
			changedForReal++
		}
	}
	t.Logf("kept over open charges %d, remade %d (of which changed %d)", kept, changed, changedForReal)
	if kept == 0 || changedForReal == 0 {
		t.Fatalf("kept %d, changed %d: the draws missed a kind of case", kept, changedForReal)
	}
}
