package checker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// rendered is everything a check reports, as bytes: what must not change
// whether the file is checked whole or streamed in pieces.
type rendered struct {
	verdict, text, json, junit string
	html                       map[string]string // file name -> page
}

var (
	secondsField = regexp.MustCompile(`"seconds": [0-9.e+-]+`)
	timeAttr     = regexp.MustCompile(`time="[0-9.]+"`)
)

func render(t *testing.T, res *Result) rendered {
	t.Helper()
	var r rendered
	r.verdict = res.Verdict()
	r.text = res.Text()
	var b bytes.Buffer
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	// Elapsed is the one field that differs run to run.
	r.json = secondsField.ReplaceAllString(b.String(), `"seconds": 0`)
	b.Reset()
	if err := res.WriteJUnit(&b, "suite"); err != nil {
		t.Fatal(err)
	}
	r.junit = timeAttr.ReplaceAllString(b.String(), `time="0"`)
	dir := t.TempDir()
	paths, err := res.WriteHTML(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.html = map[string]string{}
	for _, p := range paths {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r.html[filepath.Base(p)] = string(page)
	}
	return r
}

// sameReports checks file both ways, whole (ReadJSONLWith, then Check: the
// path every file took before streaming) and streamed in pieces of each
// size, and wants every report byte for byte the same.
func sameReports(t *testing.T, file string, opts CheckOptions, sizes ...int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	h, warns, err := history.ReadJSONLWith(f, history.ReadOptions{File: file})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := render(t, Check(h, opts))
	for _, size := range sizes {
		res, swarns, err := CheckFile(file, opts, history.ReadOptions{File: file}, StreamOptions{PieceOps: size, Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("pieces of %d: %v", size, err)
		}
		if got, want := fmtErrs(swarns), fmtErrs(warns); got != want {
			t.Errorf("pieces of %d: warnings\n%s\nwant\n%s", size, got, want)
		}
		got := render(t, res)
		for _, c := range []struct{ what, got, want string }{
			{"verdict", got.verdict, want.verdict}, {"text", got.text, want.text},
			{"JSON", got.json, want.json}, {"JUnit", got.junit, want.junit},
		} {
			if c.got != c.want {
				t.Errorf("pieces of %d: %s differs:\n%s\nwant\n%s", size, c.what, c.got, c.want)
			}
		}
		if g, w := keys(got.html), keys(want.html); strings.Join(g, " ") != strings.Join(w, " ") {
			t.Errorf("pieces of %d: pictures %v, want %v", size, g, w)
		}
		for name, page := range want.html {
			if got.html[name] != page {
				t.Errorf("pieces of %d: picture %s differs:\n%s", size, name, firstDiff(got.html[name], page))
			}
		}
	}
}

func fmtErrs(es []*history.InputError) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// firstDiff shows where two pages part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-200, 0)
	return fmt.Sprintf("got  ...%s\nwant ...%s", got[lo:min(i+200, len(got))], want[lo:min(i+200, len(want))])
}

// TestStreamSameAsWhole: every hand-made history, checked in pieces of one
// component each and of a few, reports exactly what the whole check does.
func TestStreamSameAsWhole(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			sameReports(t, file, CheckOptions{}, 1, 7, 1<<20)
		})
	}
}

// TestStreamSameAsWholeMutated: a 100k-op generated history with every
// mutation of mutate_test.go in it at once (so pieces hold violations of
// every kind, several of a kind, to be merged as the whole check merges
// them), written with its lines shuffled (one intent's ops all over the
// file), reports exactly the same in pieces as whole.
func TestStreamSameAsWholeMutated(t *testing.T) {
	if testing.Short() {
		t.Skip("100k ops")
	}
	h, _ := history.Generate(history.GenOptions{Seed: 11, Ops: 100_000, UnknownRate: 0.05})
	for _, m := range mutations() {
		h = m.mutate(t, h)
	}
	file := filepath.Join(t.TempDir(), "mutated.jsonl")
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sameReports(t, file, CheckOptions{}, 2_000, 30_000)
}

// TestStreamSameAsWholeTogether: all hand-made histories in one file, each
// one's names made its own, so the file is many pieces, some of which
// record no charge, credit, notify or sink read of their own while the file
// does: a piece is judged by what the whole file records.
func TestStreamSameAsWholeTogether(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata", err)
	}
	var all history.History
	for n, file := range files {
		all = append(all, ownNames(readTestdata(t, filepath.Base(file)), fmt.Sprintf("f%d-", n))...)
	}
	file := filepath.Join(t.TempDir(), "together.jsonl")
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, all); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sameReports(t, file, CheckOptions{}, 1, 50)
}

// ownNames prefixes every name in h that joins ops (streamkeys.go).
func ownNames(h history.History, prefix string) history.History {
	own := func(s *string) {
		if *s != "" {
			*s = prefix + *s
		}
	}
	out := make(history.History, len(h))
	for i, op := range h {
		for _, s := range []*string{&op.Intent, &op.PaymentID, &op.Input.PSPKey, &op.Input.ChargeID, &op.Input.Merchant,
			&op.Input.EventID, &op.Input.ReplaceID, &op.Input.Recipient, &op.Input.Request, &op.Input.Item, &op.Input.Message} {
			own(s)
		}
		if op.Input.Metadata != nil {
			md := map[string]string{}
			for k, v := range op.Input.Metadata {
				own(&v)
				md[k] = v
			}
			op.Input.Metadata = md
		}
		if op.Output != nil {
			o := *op.Output
			own(&o.PaymentID)
			own(&o.ChargeID)
			own(&o.RefundID)
			op.Output = &o
		}
		out[i] = op
	}
	return out
}

// TestStreamErrorInLaterBatch: a file of several batches of lines (the
// first pass reads 8 MB at a time, and joins and writes one batch while it
// parses the next) with a broken line near its end fails with the error a
// whole read gives, and no stage of the pass is left waiting.
func TestStreamErrorInLaterBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 MB file")
	}
	h, _ := history.Generate(history.GenOptions{Seed: 5, Ops: 100_000})
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	if b.Len() < 16<<20 {
		t.Fatalf("%d bytes: fewer than three batches", b.Len())
	}
	b.WriteString("{\"process\":\"p\",\"op\":\"create\"}\n")
	b.WriteString(strings.Repeat("{\"process\":\"p\",\"op\":\"balance\",\"call\":1,\"return\":2,\"input\":{\"merchant\":\"m\"},\"output\":{\"balance\":1}}\n", 1000))
	file := filepath.Join(t.TempDir(), "late.jsonl")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, want := history.ReadJSONLWith(bytes.NewReader(b.Bytes()), history.ReadOptions{File: file})
	if want == nil {
		t.Fatal("the broken line reads")
	}
	_, _, err := CheckFile(file, CheckOptions{}, history.ReadOptions{File: file}, StreamOptions{Dir: t.TempDir()})
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("streamed: %v\nwant %v", err, want)
	}
}
