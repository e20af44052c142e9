package checkcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// historyExamples is every history docs/HISTORY.md names, with the exit code
// and the violation kinds (one entry per violation) `idemcheck check` must
// give it: the text says so, and this test holds the text to it.
var historyExamples = map[string]struct {
	exit  int
	kinds []string
}{
	"double-charge.jsonl":                         {ExitViolation, []string{"double-charge"}},
	"effect-after-void.jsonl":                     {ExitViolation, []string{"effect-after-void"}},
	"wrong-amount.jsonl":                          {ExitViolation, []string{"wrong-amount"}},
	"wrong-amount-currency.jsonl":                 {ExitViolation, []string{"wrong-amount"}},
	"wrong-amount-no-claimer.jsonl":               {ExitViolation, []string{"wrong-amount"}},
	"wrong-amount-legal.jsonl":                    {ExitOK, nil},
	"false-mismatch.jsonl":                        {ExitViolation, []string{"false-mismatch"}},
	"mismatch-accepted.jsonl":                     {ExitViolation, []string{"mismatch-accepted"}},
	"mismatch-accepted-unclaimed.jsonl":           {ExitViolation, []string{"mismatch-accepted"}},
	"in-progress-then-replay.jsonl":               {ExitViolation, []string{"mismatch-accepted"}},
	"in-progress-other-fp.jsonl":                  {ExitOK, nil},
	"in-progress-stale-settled.jsonl":             {ExitOK, nil},
	"inconsistent-answer-stale-in-progress.jsonl": {ExitViolation, []string{"inconsistent-answer"}},
	"inconsistent-answer.jsonl":                   {ExitViolation, []string{"inconsistent-answer"}},
	"inconsistent-answer-notfound.jsonl":          {ExitViolation, []string{"inconsistent-answer"}},
	"inconsistent-answer-caller.jsonl":            {ExitViolation, []string{"inconsistent-answer"}},
	"double-credit.jsonl":                         {ExitViolation, []string{"double-credit"}},
	"balance-double.jsonl":                        {ExitViolation, []string{"double-credit"}},
	"lost-effect.jsonl":                           {ExitViolation, []string{"lost-effect"}},
	"lost-effect-notify.jsonl":                    {ExitViolation, []string{"lost-effect"}},
	"notification-stacked.jsonl":                  {ExitViolation, []string{"notification-stacked"}},
	"double-refund.jsonl":                         {ExitViolation, []string{"double-refund"}},
	"double-refund-request.jsonl":                 {ExitViolation, []string{"double-refund"}},
	"double-refund-no-charge.jsonl":               {ExitViolation, []string{"double-refund"}},
	"partial-refunds.jsonl":                       {ExitOK, nil},
	"failed-but-charged-processing.jsonl":         {ExitViolation, []string{"failed-but-charged"}},
	"failed-but-charged-error.jsonl":              {ExitViolation, []string{"failed-but-charged"}},
	"failed-but-charged-no-answer.jsonl":          {ExitViolation, []string{"failed-but-charged"}},
	"failed-but-charged-partial-refund.jsonl":     {ExitViolation, []string{"failed-but-charged"}},
	"converged.jsonl":                             {ExitOK, nil},
	"sink-divergence.jsonl":                       {ExitViolation, []string{"sink-divergence"}},
	"sink-legal.jsonl":                            {ExitOK, nil},
	"stale-write-applied.jsonl":                   {ExitViolation, []string{"stale-write-applied"}},
	"effect-resurrected.jsonl":                    {ExitViolation, []string{"effect-resurrected", "effect-resurrected"}},
	"shapes-legal.jsonl":                          {ExitOK, nil},
}

func readHistoryDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "HISTORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHistoryDocExamples runs `idemcheck check` on every example file the
// contract names and asserts the exit code and the kinds it states. A file
// named in the text and missing from the table fails, and so does one in the
// table the text no longer names.
func TestHistoryDocExamples(t *testing.T) {
	doc := readHistoryDoc(t)
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9-]+\\.jsonl)`").FindAllStringSubmatch(doc, -1) {
		named[m[1]] = true
	}
	for name := range named {
		if _, ok := historyExamples[name]; !ok {
			t.Errorf("docs/HISTORY.md names %s, which this test does not check", name)
		}
	}
	for name, want := range historyExamples {
		if !named[name] {
			t.Errorf("%s is in the table but docs/HISTORY.md does not name it", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			code, out, errs := run("--json", js, filepath.Join("..", "testdata", name))
			if code != want.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, want.exit, out, errs)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Violations []struct {
					Kind string `json:"kind"`
				} `json:"violations"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range rep.Violations {
				got = append(got, v.Kind)
			}
			sort.Strings(got)
			w := append([]string(nil), want.kinds...)
			sort.Strings(w)
			if strings.Join(got, ",") != strings.Join(w, ",") {
				t.Fatalf("kinds %v, want %v\n%s", got, w, out)
			}
		})
	}
}

// TestHistoryDocBlocks: every JSON line shown in docs/HISTORY.md is a line of
// one of the example files, shortened only by leaving fields out (the text
// says lines are shortened), so no example shows a history that was not
// checked.
func TestHistoryDocBlocks(t *testing.T) {
	doc := readHistoryDoc(t)
	files := map[string][]map[string]any{}
	for name := range historyExamples {
		b, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			files[name] = append(files[name], m)
		}
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("no json block in docs/HISTORY.md")
	}
	for _, blk := range blocks {
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(blk[1]), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("docs/HISTORY.md block line %q: %v", l, err)
			}
			lines = append(lines, m)
		}
		found := ""
		for name, fl := range files {
			if allShortened(lines, fl) {
				found = name
				break
			}
		}
		if found == "" {
			t.Errorf("block is not a shortened part of any example file:\n%s", blk[1])
		}
	}
}

func allShortened(lines, file []map[string]any) bool {
	for _, l := range lines {
		ok := false
		for _, f := range file {
			if subset(l, f) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// subset: every field of a is in b with the same value (objects recursively).
func subset(a, b any) bool {
	am, ok := a.(map[string]any)
	if !ok {
		return reflect.DeepEqual(a, b)
	}
	bm, ok := b.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range am {
		if !subset(v, bm[k]) {
			return false
		}
	}
	return true
}
