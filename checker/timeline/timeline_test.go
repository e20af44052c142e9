package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// story builds a small timeline on a fake clock: 100 ms per story second.
func story(t *testing.T) *Timeline {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	tl := New("H1 <test>", 42, 100*time.Millisecond, t0)
	tl.SetClock(func() time.Time { return now })
	tl.Mark("phone", "tap: K1")
	now = t0.Add(time.Second) // story 10
	tl.Repeat("phone", "retry K1", "create K1", "key record pointer: processing")
	// Recorded late, but it happened at story 0.02.
	tl.MarkAt(t0.Add(2*time.Millisecond), "psp", "charge ch_1")
	tl.Jump(now, 7190)
	now = now.Add(time.Millisecond) // story 7200.01
	tl.Repeat("phone", "buyer back", "create K1", "durable guard")
	tl.Fact("charges", "1", true)
	tl.Fact("credits", "2", false)
	tl.Note("clocks <moved>")
	return tl
}

func TestStorySecondsAndOrder(t *testing.T) {
	tl := story(t)
	es := tl.Entries()
	if len(es) != 4 {
		t.Fatalf("entries = %d, want 4", len(es))
	}
	want := []struct {
		at    float64
		event string
	}{{0, "tap: K1"}, {0.02, "charge ch_1"}, {10, "retry K1"}, {7200.01, "buyer back"}}
	for i, w := range want {
		if d := es[i].At - w.at; d > 1e-9 || d < -1e-9 || es[i].Event != w.event {
			t.Errorf("entry %d = %.4f %q, want %.4f %q", i, es[i].At, es[i].Event, w.at, w.event)
		}
	}
	if rs := tl.Repeats(); len(rs) != 2 || rs[0].Event != "retry K1" || rs[1].Absorbed != "durable guard" {
		t.Errorf("repeats = %+v", rs)
	}
	// A time before the jump is not moved by it.
	if s := tl.StoryAt(time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC)); s != 5 {
		t.Errorf("StoryAt before the jump = %v, want 5", s)
	}
}

func TestTiesKeepRecordingOrder(t *testing.T) {
	t0 := time.Unix(0, 0)
	tl := New("ties", 1, time.Second, t0)
	tl.SetClock(func() time.Time { return t0 })
	for _, e := range []string{"a", "b", "c"} {
		tl.Mark("x", e)
	}
	var got []string
	for _, e := range tl.Entries() {
		got = append(got, e.Event)
	}
	if strings.Join(got, "") != "abc" {
		t.Errorf("order = %v", got)
	}
}

func TestText(t *testing.T) {
	txt := story(t).Text()
	for _, want := range []string{
		"H1 <test> (seed 42; one story second = 100ms)\nclocks <moved>\n",
		"story s", "absorbed by",
		"0.02", "charge ch_1",
		"10.00", "key record pointer: processing",
		"7200", "durable guard",
		"Every repeat (2)",
		"ok  charges: 1", "BAD credits: 2",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "7200.01") {
		t.Errorf("long story times print whole seconds:\n%s", txt)
	}
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	var b bytes.Buffer
	if err := story(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{"H1 &lt;test&gt;", "<p>clocks &lt;moved&gt;</p>", "Every repeat and what absorbed it (2)", `class="repeat"`, "WRONG",
		"Some lines of the end state are wrong", "4 events, 2 tiers"} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link", "H1 <test>"} {
		if strings.Contains(h, bad) {
			t.Errorf("html contains %q", bad)
		}
	}
}

func TestHTMLAllOK(t *testing.T) {
	tl := New("fine", 1, time.Second, time.Unix(0, 0))
	tl.Fact("charges", "1", true)
	var b bytes.Buffer
	if err := tl.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Every line of the end state is as this run requires.") {
		t.Error("an all-ok end state is not said so")
	}
	if !strings.Contains(b.String(), "No repeat was recorded.") {
		t.Error("an empty repeats table is not said so")
	}
}

func TestSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report", "story")
	txt, html, err := story(t).Save(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{txt, html} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v (%d bytes)", p, err, len(b))
		}
	}
	if filepath.Base(txt) != "timeline.txt" || filepath.Base(html) != "timeline.html" {
		t.Errorf("names %s, %s", txt, html)
	}
}

func TestOneLineColumns(t *testing.T) {
	tl := New("x", 1, time.Second, time.Unix(0, 0))
	tl.SetClock(func() time.Time { return time.Unix(0, 0) })
	tl.Mark("a\tb", "two\nlines")
	txt := tl.Text()
	if !strings.Contains(txt, "two lines") || !strings.Contains(txt, "a b") {
		t.Errorf("newline kept in a column:\n%s", txt)
	}
}
