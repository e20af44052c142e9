package checker

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
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
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
	} {
		sameAsSlow(t, []byte(line))
	}
}

func FuzzFastDecoder(f *testing.F) {
	f.Add([]byte(goodCreate))
	f.Add([]byte(`{"process":"n","op":"notify","call":1,"return":2,"payment_id":"p","input":{"replace_id":"r","recipient":"u"},"output":{"shown":2,"alert":true}}`))
	f.Add([]byte(`{"process":"p","op":"refund","call":1,"return":2,"intent":"i","input":{"psp_key":"k","amount":1,"charge_id":"c","request":"r"},"output":{"refund_id":"r"}}`))
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
