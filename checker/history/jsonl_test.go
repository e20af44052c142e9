package history

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const goodCreate = `{"process":"phone-1","op":"create","call":10,"return":20,"intent":"payments:u1:K1","input":{"fingerprint":"f1","amount":3000,"currency":"USD"},"output":{"outcome":"succeeded","payment_id":"pay_7"}}`

func TestReadJSONLErrors(t *testing.T) {
	cases := []struct {
		name, line, want string
	}{
		{"not json", `{"process":`, `history:2: not valid JSON`},
		{"missing call", `{"process":"p","op":"balance","return":null,"input":{"merchant":"m1"}}`, `history:2: field "call": missing`},
		{"missing return", `{"process":"p","op":"balance","call":1,"input":{"merchant":"m1"}}`, `history:2: field "return": missing`},
		{"missing process", `{"op":"balance","call":1,"return":null,"input":{"merchant":"m1"}}`, `history:2: field "process": missing`},
		{"unknown op", `{"process":"p","op":"teleport","call":1,"return":null}`, `history:2: field "op": unknown op "teleport"`},
		{"return before call", `{"process":"p","op":"balance","call":5,"return":4,"input":{"merchant":"m1"},"output":{"balance":1}}`, `history:2: field "return": return 4 is before call 5`},
		{"call not int", `{"process":"p","op":"balance","call":"x","return":null,"input":{"merchant":"m1"}}`, `history:2: field "call": want an integer, got string`},
		{"amount float", `{"process":"p","op":"charge","call":1,"return":2,"payment_id":"pay","input":{"psp_key":"k","amount":1.5},"output":{"charge_id":"c"}}`, `history:2: field "input.amount": want an integer, got number 1.5`},
		{"create no fingerprint", `{"process":"p","op":"create","call":1,"return":null,"intent":"i","input":{"amount":1,"currency":"USD"}}`, `history:2: field "input.fingerprint": missing`},
		{"create no amount", `{"process":"p","op":"create","call":1,"return":null,"intent":"i","input":{"fingerprint":"f","currency":"USD"}}`, `history:2: field "input.amount": missing`},
		{"create no intent", `{"process":"p","op":"create","call":1,"return":null,"input":{"fingerprint":"f","amount":1,"currency":"USD"}}`, `history:2: field "intent": missing`},
		{"create no outcome", `{"process":"p","op":"create","call":1,"return":2,"intent":"i","input":{"fingerprint":"f","amount":1,"currency":"USD"},"output":{}}`, `history:2: field "output.outcome": missing`},
		{"create bad outcome", `{"process":"p","op":"create","call":1,"return":2,"intent":"i","input":{"fingerprint":"f","amount":1,"currency":"USD"},"output":{"outcome":"maybe"}}`, `history:2: field "output.outcome": unknown outcome "maybe"`},
		{"charge no key", `{"process":"psp","op":"charge","call":1,"return":2,"payment_id":"p","input":{"amount":1},"output":{"charge_id":"c"}}`, `history:2: field "input.psp_key": missing`},
		{"charge no scope", `{"process":"psp","op":"charge","call":1,"return":2,"input":{"psp_key":"k","amount":1},"output":{"charge_id":"c"}}`, `history:2: field "intent": missing`},
		{"charge no output", `{"process":"psp","op":"charge","call":1,"return":2,"payment_id":"p","input":{"psp_key":"k","amount":1}}`, `history:2: field "output.charge_id": missing`},
		{"refund no charge id", `{"process":"psp","op":"refund","call":1,"return":2,"payment_id":"p","input":{"psp_key":"k","amount":1},"output":{"refund_id":"r"}}`, `history:2: field "input.charge_id": missing`},
		{"credit no event", `{"process":"l","op":"credit","call":1,"return":2,"payment_id":"p","input":{"merchant":"m","amount":1}}`, `history:2: field "input.event_id": missing`},
		{"credit no merchant", `{"process":"l","op":"credit","call":1,"return":2,"payment_id":"p","input":{"amount":1,"event_id":"e"}}`, `history:2: field "input.merchant": missing`},
		{"notify no recipient", `{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r"},"output":{"shown":1}}`, `history:2: field "input.recipient": missing`},
		{"notify no shown", `{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{}}`, `history:2: field "output.shown": missing`},
		{"balance no merchant", `{"process":"r","op":"balance","call":1,"return":null,"input":{}}`, `history:2: field "input.merchant": missing`},
		{"balance no value", `{"process":"r","op":"balance","call":1,"return":2,"input":{"merchant":"m"},"output":{}}`, `history:2: field "output.balance": missing`},
		{"return not int", `{"process":"p","op":"balance","call":1,"return":"soon","input":{"merchant":"m1"}}`, `history:2: field "return": want an integer or null, got "soon"`},
		{"shown not int", `{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{"shown":"two"}}`, `history:2: field "output.shown": want an integer, got string`},
		{"array line", `[1,2]`, `history:2: want a JSON object`},
		{"input not object", `{"process":"r","op":"balance","call":1,"return":null,"input":7}`, `history:2: field "input": want a JSON object`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(goodCreate + "\n\n" + c.line + "\n"))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want *InputError, got %v", err)
			}
			// The blank line counts: the bad line is line 3.
			want := strings.Replace(c.want, "history:2:", "history:3:", 1)
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error = %q, want prefix %q", err, want)
			}
		})
	}
}

func TestReadJSONLAllowsExtrasAndNull(t *testing.T) {
	in := `{"process":"p","op":"create","call":1,"return":null,"intent":"i","input":{"fingerprint":"f","amount":1,"currency":"USD","extra":true},"output":{"outcome":"bogus"},"region":"r2"}` + "\n   \n" +
		`{"process":"r","op":"balance","call":1,"return":3,"input":{"merchant":"m"},"output":{"balance":0}}`
	h, err := ReadJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Return != nil || h[0].Output != nil || *h[1].Output.Balance != 0 {
		t.Fatalf("got %+v", h)
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	h, _ := Generate(GenOptions{Seed: 7, Ops: 500, UnknownRate: 0.2})
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(h) {
		t.Fatalf("read %d ops, wrote %d", len(back), len(h))
	}
	var again bytes.Buffer
	if err := WriteJSONL(&again, back); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	_ = WriteJSONL(&first, h)
	if first.String() != again.String() {
		t.Fatal("round trip changed the history")
	}
}

// TestCreateWithoutCurrency: a create's currency is optional (HISTORY.md): a
// request that sends none is read, strict or not, recorded, and written back
// without one.
func TestCreateWithoutCurrency(t *testing.T) {
	line := strings.Replace(goodCreate, `,"currency":"USD"`, ``, 1)
	for _, strict := range []bool{false, true} {
		h, warns, err := ReadJSONLWith(strings.NewReader(line+"\n"), ReadOptions{File: "h.jsonl", Strict: strict})
		if err != nil || len(warns) != 0 || len(h) != 1 || h[0].Input.Currency != "" || *h[0].Input.Amount != 3000 {
			t.Fatalf("strict %v: read %+v, warnings %v, error %v; want the create without a currency", strict, h, warns, err)
		}
	}
	r := NewRecorder()
	p := r.Begin("phone-1", OpCreate, "payments:u1:K1", Input{Fingerprint: "f1", Amount: Int64(3000)})
	if err := p.End(Output{Outcome: OutcomeSucceeded, PaymentID: "pay_7"}); err != nil || len(r.Errors()) != 0 || len(r.History()) != 1 {
		t.Fatalf("recorder: %v, refusals %v, %d ops; want the create kept", err, r.Errors(), len(r.History()))
	}
	var buf bytes.Buffer
	if err := r.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "currency") {
		t.Fatalf("written %s: want no currency", buf.String())
	}
	if _, err := ReadJSONL(&buf); err != nil {
		t.Fatalf("read back: %v", err)
	}
}
