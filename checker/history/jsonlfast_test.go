package history

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sameAsSlow fails when the fast decoder and encoding/json disagree on a line:
// both must accept the same op or refuse it with the same words.
func sameAsSlow(t *testing.T, line []byte) {
	t.Helper()
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return
	}
	fast, _, fe := parseLineFields(b)
	slow, se := parseLine(b)
	if (fe == nil) != (se == nil) || (fe != nil && fe.Error() != se.Error()) {
		t.Fatalf("line %q: fast error %v, slow error %v", b, fe, se)
	}
	if fe == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("line %q:\nfast %+v\nslow %+v", b, fast, slow)
	}
}

func TestFastDecoderMatchesEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			sameAsSlow(t, line)
		}
	}
	h, _ := Generate(GenOptions{Seed: 3, Ops: 2000, UnknownRate: 0.2})
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h); err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		sameAsSlow(t, line)
	}
	for _, line := range []string{
		goodCreate,
		`{"process":"p","op":"create","call":1,"return":null,"intent":"i","input":{"fingerprint":"f","amount":1,"currency":"USD"},"output":null}`,
		`{"process":"p","op":"create","call":1,"return":2,"return":null,"intent":"i","input":{"fingerprint":"f","amount":1,"currency":"USD"}}`,
		`{"Process":"p","op":"balance","call":1,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p\u00e9","op":"balance","call":1,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p","op":"balance","call":-0,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p","op":"balance","call":01,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p","op":"balance","call":9223372036854775808,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p","op":"balance","call":-9223372036854775808,"return":null,"input":{"merchant":"m"}}`,
		`{"process":"p","op":"balance","call":1,"return":null,"input":{"merchant":"m"}} x`,
		`{"process":"p","op":"balance","call":1,"return":null,"input":{"merchant":"m"},"extra":[1,{"a":[true,null]}]}`,
		`{"process":"p","op":"charge","call":1,"return":2,"payment_id":"x","input":{"psp_key":"k","amount":3,"metadata":{"a":"b"},"metadata":{"c":"d"}},"output":{"charge_id":"c"}}`,
		`{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{"shown":99999999999,"alert":false}}`,
		`{ "process" : "p" , "op":"balance","call":1,"return":3,"input":{"merchant":"m"},"output":{"balance":0} }`,
		// The sink's and the shape kinds' fields, which the fast path reads too.
		`{"process":"s","op":"sink","call":1,"return":2,"input":{"merchant":"m","day":"2026-12-01"},"output":{"total":-5,"tag":0}}`,
		`{"process":"d","op":"write","call":1,"return":null,"input":{"device":"D","item":"i","value":"v","counter":41,"phone_time":-1,"counter":42}}`,
		`{"process":"r","op":"state","call":1,"return":2,"input":{"item":"i"},"output":{"value":""}}`,
		`{"process":"u","op":"move","call":1,"return":2,"input":{"message":"m","from":"Inbox","to":"Archive"},"output":{"outcome":"ok"}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":[]}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":[ "Inbox" , "Archive" ]}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":null}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":["a",1]}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":["a"],"folders":[]}}`,
		`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":["a",]}}`,
		`{"process":"p","op":"store","call":1,"return":1,"input":{"message":"m","offset":0},"output":{"stored":false}}`,
		`{"process":"p","op":"store","call":1,"return":1,"input":{"message":"m","offset":0},"output":{"stored":null}}`,
		`{"process":"p","op":"store","call":1,"return":1,"input":{"message":"m","Offset":0},"output":{"Stored":true}}`,
	} {
		sameAsSlow(t, []byte(line))
	}
}

// TestGeneratedLinesTakeTheFastPath: every line WriteJSONL makes of a
// generated history, every op kind's, decodes without encoding/json, so the
// kinds the generator mixes in cost a 1M-op read no more than the others.
func TestGeneratedLinesTakeTheFastPath(t *testing.T) {
	h, _ := Generate(GenOptions{Seed: 3, Ops: 2000, UnknownRate: 0.2})
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h); err != nil {
		t.Fatal(err)
	}
	var d fastLine
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if d.reset(line); !d.decode() {
			t.Fatalf("left to encoding/json: %s", line)
		}
	}
}

func FuzzFastDecoder(f *testing.F) {
	f.Add([]byte(goodCreate))
	f.Add([]byte(`{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{"shown":2,"alert":true}}`))
	f.Add([]byte(`{"process":"p","op":"refund","call":1,"return":2,"intent":"i","input":{"psp_key":"k","amount":1,"charge_id":"c","request":"r"},"output":{"refund_id":"r"}}`))
	f.Add([]byte(`{"process":"r","op":"locate","call":1,"return":2,"input":{"message":"m"},"output":{"folders":["Inbox","Archive"]}}`))
	f.Add([]byte(`{"process":"d","op":"write","call":1,"return":2,"input":{"device":"D","item":"i","value":"v","counter":4,"phone_time":9},"output":{"outcome":"ok"}}`))
	f.Fuzz(func(t *testing.T, line []byte) { sameAsSlow(t, line) })
}

func TestUnknownFieldWarnings(t *testing.T) {
	extra := strings.Replace(goodCreate, `"currency":"USD"`, `"currency":"USD","ammount":3000`, 1)
	in := goodCreate + "\n" + extra + "\n" + extra + "\n" + strings.Replace(goodCreate, `{"process"`, `{"regoin":"r2","process"`, 1) + "\n"
	h, warns, err := ReadJSONLWith(strings.NewReader(in), ReadOptions{File: "h.jsonl"})
	if err != nil || len(h) != 4 {
		t.Fatalf("read: %v, %d ops", err, len(h))
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Error())
	}
	want := []string{`h.jsonl:2: field "input.ammount": unknown field, ignored (on 2 lines, the first shown)`, `h.jsonl:4: field "regoin": unknown field, ignored`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	_, _, err = ReadJSONLWith(strings.NewReader(in), ReadOptions{File: "h.jsonl", Strict: true})
	if err == nil || err.Error() != `h.jsonl:2: field "input.ammount": unknown field (--strict)` {
		t.Fatalf("strict: %v", err)
	}
}
