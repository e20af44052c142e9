package checkcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamedSameAsWhole runs `idemcheck check` on every hand-made history
// and on broken inputs twice, reading the file whole and streaming it
// (checker.CheckFile), and wants the same stdout, stderr and exit code.
func TestStreamedSameAsWhole(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata", err)
	}
	dir := t.TempDir()
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]string{
		"empty.jsonl":   "",
		"blank.jsonl":   "\n  \n\n",
		"unknown.jsonl": strings.Replace(string(good), `"input":{`, `"input":{"ammount":1,`, 2) + "\n\n",
		"bad.jsonl":     string(good) + "{\"process\":\"p\",\"op\":\"create\"}\nnot json\n",
		"return.jsonl":  `{"process":"p","op":"balance","call":5,"return":4,"input":{"merchant":"m"},"output":{"balance":1}}` + "\n" + string(good),
	}
	for name, body := range broken {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	run := func(args []string, above int64) (string, string, int) {
		defer func(old int64) { StreamAbove = old }(StreamAbove)
		StreamAbove = above
		var out, errOut bytes.Buffer
		code := Run(args, &out, &errOut)
		return out.String(), errOut.String(), code
	}
	for _, f := range files {
		for _, extra := range [][]string{nil, {"--strict"}} {
			args := append([]string{f}, extra...)
			wo, we, wc := run(args, 1<<62)
			so, se, sc := run(args, -1)
			if so != wo || se != we || sc != wc {
				t.Errorf("%v: streamed exit %d\n%s%s\nwhole exit %d\n%s%s", args, sc, so, se, wc, wo, we)
			}
		}
	}
}
