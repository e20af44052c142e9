package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestMeaningDefaultsToTheFilledFieldsTheTemplateUses(t *testing.T) {
	r := Request{Body: `{"order": "{{order_id}}", "amount": {{amount}}, "currency": "usd"}`}
	if got := r.MeaningFields(); !slices.Equal(got, []string{"order_id", "amount"}) {
		t.Fatalf("MeaningFields = %v, want [order_id amount]", got)
	}
	lits := LiteralMembers(`{"customer": "cus_1", "n": 3, "note": "ord-{{order_id}}", "amount": {{ amount }}, "x": {"y": "{{currency}}"}}`)
	if len(lits) != 2 || string(lits["customer"]) != `"cus_1"` || string(lits["n"]) != "3" {
		t.Fatalf("LiteralMembers = %v, want customer and n only", lits)
	}
}

func TestMeaningErrorsNameTheEntry(t *testing.T) {
	body := `    {"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}`
	if !strings.Contains(Starter, body) {
		t.Fatal("the starter's body changed; update this test")
	}
	cases := []struct{ meaning, field, msg string }{
		{"[amount, customer]", "create.meaning[1]", "neither a field idemcheck fills"},
		{"[amount, amount]", "create.meaning[1]", "listed twice"},
		{"[currency]", "create.meaning", "must list amount"},
	}
	for _, tc := range cases {
		text := strings.Replace(Starter, body, body+"\n  meaning: "+tc.meaning, 1)
		_, err := Parse("cfg.yaml", []byte(text))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Field != tc.field || !strings.Contains(es[0].Msg, tc.msg) || es[0].Line == 0 {
			t.Errorf("meaning %s: got %v, want one error at %s with %q and a line", tc.meaning, err, tc.field, tc.msg)
		}
	}
	ok := strings.Replace(Starter, body, strings.Replace(body, `"amount"`, `"customer": "cus_1", "amount"`, 1)+"\n  meaning: [amount, customer]", 1)
	c, err := Parse("cfg.yaml", []byte(ok))
	if err != nil || !slices.Equal(c.Create.MeaningFields(), []string{"amount", "customer"}) {
		t.Fatalf("a literal member as meaning: %v %v", err, c)
	}
}
