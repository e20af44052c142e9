package scenario

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/pspfront"
)

// attributeNaive is Attribute as it was before it was indexed: every
// charge searched every exchange for every order id. It is the oracle the
// indexed version must agree with (attribute_equiv_test.go), and the
// "old" side of BenchmarkAttribute.
func attributeNaive(charges []history.Op, ex []pspfront.Exchange, orders []Order) Attribution {
	a := Attribution{By: map[string][]history.Op{}, How: map[string]int{}}
	inText := func(s string) string {
		for _, o := range orders {
			if strings.Contains(s, o.ID) {
				return o.ID
			}
		}
		return ""
	}
	for _, c := range charges {
		id, how := "", ""
		for _, v := range sortedValues(c.Input.Metadata) {
			if id = inText(v); id != "" {
				how = ByMetadata
				break
			}
		}
		if id == "" {
			for _, x := range ex {
				sameKey := c.Input.PSPKey != "" && x.Key == c.Input.PSPKey
				names := c.Output != nil && c.Output.ChargeID != "" && strings.Contains(x.RespBody, c.Output.ChargeID)
				if sameKey || names {
					if id = inText(x.Body); id != "" {
						how = ByRequest
						break
					}
				}
			}
		}
		if id == "" && c.Input.Amount != nil {
			var hits []string
			for _, o := range orders {
				if o.Amount == *c.Input.Amount || slices.Contains(o.Alt, *c.Input.Amount) {
					hits = append(hits, o.ID)
				}
			}
			if len(hits) == 1 {
				id, how = hits[0], ByAmount
			}
		}
		if id == "" {
			a.Unattributed = append(a.Unattributed, c)
			continue
		}
		a.By[id] = append(a.By[id], c)
		a.How[how]++
	}
	return a
}
