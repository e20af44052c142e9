package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// writeJSONLReflect is how WriteJSONL wrote a history before it built lines
// by hand: encoding/json, HTML escaping off. The two must agree byte for byte.
func writeJSONLReflect(t *testing.T, h History) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range h {
		if err := enc.Encode(&h[i]); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func sameAsReflect(t *testing.T, name string, h History) {
	t.Helper()
	var got bytes.Buffer
	if err := WriteJSONL(&got, h); err != nil {
		t.Fatal(err)
	}
	want := writeJSONLReflect(t, h)
	if bytes.Equal(got.Bytes(), want) {
		return
	}
	g, w := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < min(len(g), len(w)); i++ {
		if !bytes.Equal(g[i], w[i]) {
			t.Fatalf("%s: line %d:\n got %s\nwant %s", name, i+1, g[i], w[i])
		}
	}
	t.Fatalf("%s: %d lines, want %d", name, len(g), len(w))
}

func TestWriteJSONLMatchesEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadJSONL(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sameAsReflect(t, f, h)
	}
	h, _ := Generate(GenOptions{Seed: 3, Ops: 2000, UnknownRate: 0.2})
	sameAsReflect(t, "generated", h)

	odd := []string{"", "plain", `q"uote`, `back\slash`, "tab\there", "nl\n", "\x00\x1f\x7f", "<&>", "caf\u00e9", "\u2028\u2029", "bad\xffutf8", "\U0001F600"}
	for _, s := range odd {
		sameAsReflect(t, "odd "+s, History{{
			Process: s, Op: s, Call: -1, Return: Int64(1 << 62), Intent: s, PaymentID: s, Region: s,
			Input: Input{Fingerprint: s, Amount: Int64(-5), Currency: s, PSPKey: s, ChargeID: s, Merchant: s, EventID: s,
				ReplaceID: s, Recipient: s, Request: s, Metadata: map[string]string{s: s, "b" + s: "x", "a": s}, Day: s,
				ShapeInput: ShapeInput{Device: s, Item: s, Value: s, Counter: Int64(0), PhoneTime: Int64(7), Message: s, From: s, To: s, Offset: Int64(3)}},
			Output: &Output{Outcome: s, PaymentID: s, ChargeID: s, RefundID: s, Shown: Int(-2), Alert: Bool(false), Balance: Int64(9),
				Total: Int64(1), Tag: Int64(2), ShapeOutput: ShapeOutput{Value: s, Folders: Folders(s, "b"), Stored: Bool(true)}},
		}})
	}
	var nilList []string
	sameAsReflect(t, "edges", History{
		{Process: "p", Op: OpBalance},
		{Process: "p", Op: OpLocate, Input: Input{Metadata: map[string]string{}}, Output: &Output{ShapeOutput: ShapeOutput{Folders: &nilList}}},
		{Process: "p", Op: OpLocate, Output: &Output{ShapeOutput: ShapeOutput{Folders: Folders()}}},
	})
}

// A caller's bufio.Writer is written to, not flushed: the caller flushes it,
// as before.
func TestWriteJSONLLeavesCallersBuffer(t *testing.T) {
	var out bytes.Buffer
	bw := bufio.NewWriterSize(&out, 1<<20)
	h := History{{Process: "p", Op: OpBalance}}
	if err := WriteJSONL(bw, h); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), writeJSONLReflect(t, h)) {
		t.Fatalf("got %q", out.Bytes())
	}
}
