package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	tm := &timing{n: 100}
	for i := 1; i <= 100; i++ {
		tm.lat = append(tm.lat, time.Duration(i)*time.Millisecond)
	}
	if tm.pct(50) != 50*time.Millisecond || tm.pct(99) != 99*time.Millisecond || tm.pct(100) != 100*time.Millisecond {
		t.Fatalf("p50 %v p99 %v p100 %v", tm.pct(50), tm.pct(99), tm.pct(100))
	}
	one := &timing{n: 1, lat: []time.Duration{time.Second}}
	if one.pct(1) != time.Second || one.pct(99) != time.Second {
		t.Fatalf("one sample: %v %v", one.pct(1), one.pct(99))
	}
}

func TestRunWithCountsEveryCallAndStopsAtTheFirstError(t *testing.T) {
	var calls [1000]int
	tm, err := runWith(8, len(calls), func(i int) error { calls[i]++; return nil })
	if err != nil || tm.n != 1000 || len(tm.lat) != 1000 {
		t.Fatalf("runWith: %v, %+v", err, tm)
	}
	for i, c := range calls {
		if c != 1 {
			t.Fatalf("call %d ran %d times", i, c)
		}
	}
	boom := errors.New("boom")
	if _, err := runWith(4, 100, func(i int) error {
		if i == 10 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) {
		t.Fatalf("error lost: %v", err)
	}
}

func TestChooseRefusesAnUnknownSection(t *testing.T) {
	s, err := choose([]string{"chaos", "api"})
	if err != nil || len(s) != 2 || s[0].name != "api" || s[1].name != "chaos" {
		t.Fatalf("choose: %v %v", s, err)
	}
	if _, err := choose([]string{"api", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown section: %v", err)
	}
	if len(Sections) != len(sections) {
		t.Fatalf("Sections lists %d, sections has %d", len(Sections), len(sections))
	}
	for i, s := range sections {
		if Sections[i] != s.name {
			t.Fatalf("Sections[%d] = %s, sections[%d] = %s", i, Sections[i], i, s.name)
		}
	}
}

func TestPerOpSumsEachGroup(t *testing.T) {
	before := cpuSample{"a": time.Second, "b": 0, "c": time.Second}
	after := cpuSample{"a": 3 * time.Second, "b": time.Second, "c": time.Second}
	s, total := perOp(before, after, 1000)
	if total != 3000 || s != "a 2000, b 1000" {
		t.Fatalf("perOp = %q, %v", s, total)
	}
	if s, total := perOp(nil, after, 10); s != "" || total != 0 {
		t.Fatalf("no sample: %q %v", s, total)
	}
}

// TestLastLineIsTheKeyValueLine: the table comes first, the bench: line
// last, with the pairs in the order they were set and failed sections named.
func TestLastLineIsTheKeyValueLine(t *testing.T) {
	r := &runner{o: Options{Out: t.TempDir()}, vals: map[string]string{}}
	r.row("p", "1/s", "2/s", "0.5")
	r.key("api_per_s", "%.0f", 1.0)
	r.key("api_ratio", "%.3f", 0.5)
	r.key("api_per_s", "%.0f", 2.0)
	var out bytes.Buffer
	r.finish(&out, "quick", []string{"delivery"})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if got := lines[len(lines)-1]; got != "bench: api_per_s=2 api_ratio=0.500 failed=delivery" {
		t.Fatalf("last line %q", got)
	}
}
